// What the two WhatsApp adapters share (Baileys `whatsapp` and Cloud API `whatsapp_cloud`):
// WhatsApp's Markdown flavour, phone numbers and JIDs.

/** The model's Markdown → WhatsApp formatting (*bold*, _italic_, ~strike~, ``` blocks, links as text). */
export function markdownToWhatsApp(md: string): string {
  return md
    .split(/(```[\s\S]*?```|`[^`\n]+`)/g)
    .map((part) => {
      if (part.startsWith('```')) return part.replace(/^```[^\n`]*\n/, '```\n');
      if (part.startsWith('`')) return part;
      return part
        .replace(/^#{1,6}\s+(.+)$/gm, '*$1*')
        .replace(/\*\*([^*\n]+)\*\*/g, '*$1*')
        .replace(/~~([^~\n]+)~~/g, '~$1~')
        .replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, '$1 ($2)');
    })
    .join('');
}

/** `+1 (555) 123-4567` / `15551234567@s.whatsapp.net` / `15551234567:12@s.whatsapp.net` → `15551234567`. */
export function phoneOf(jidOrNumber: string): string {
  return jidOrNumber.split('@')[0].split(':')[0].replace(/[^\d]/g, '');
}

/** A delivery target (number or JID) → a JID Baileys can send to. */
export function toJid(target: string): string {
  if (target.includes('@')) return target;
  return `${phoneOf(target)}@s.whatsapp.net`;
}

export const isGroupJid = (jid: string) => jid.endsWith('@g.us');
