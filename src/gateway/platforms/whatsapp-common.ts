// What the two WhatsApp adapters share (Baileys `whatsapp` and Cloud API `whatsapp_cloud`):
// phone numbers and JIDs (WhatsApp's Markdown flavour is toWhatsApp in ../markdown/serializers.ts).

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
