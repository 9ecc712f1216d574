// An editor's prompt (text, image and resource blocks) as a user message for the model.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { ContentPart, Message } from '../llm/types.ts';

/** Inlined resources (embedded or local linked files) are capped at this size. */
export const MAX_INLINE_BYTES = 512 * 1024;

function fileBlock(uri: string, text: string): string {
  const name = uri.startsWith('file://') ? safePath(uri) ?? uri : uri;
  return `<file path="${name}">\n${text.length > MAX_INLINE_BYTES ? `${text.slice(0, MAX_INLINE_BYTES)}\n[… truncated at 512 KiB …]` : text}\n</file>`;
}

function safePath(uri: string): string | null {
  try {
    return fileURLToPath(uri);
  } catch {
    return null;
  }
}

/** Converts prompt blocks; returns the message and the plain text (for slash commands and titles). */
export function promptToMessage(blocks: ContentBlock[]): { message: Message; text: string } {
  const parts: ContentPart[] = [];
  const texts: string[] = [];
  const addText = (t: string) => {
    texts.push(t);
    const last = parts[parts.length - 1];
    if (last?.type === 'text') last.text += `\n\n${t}`;
    else parts.push({ type: 'text', text: t });
  };
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        addText(b.text);
        break;
      case 'image':
        parts.push({ type: 'image_url', image_url: { url: `data:${b.mimeType};base64,${b.data}` } });
        break;
      case 'audio':
        addText('[The user attached audio, which Hermes cannot listen to in the editor yet.]');
        break;
      case 'resource': {
        const r = b.resource as { uri: string; text?: string; blob?: string; mimeType?: string | null };
        if (typeof r.text === 'string') addText(fileBlock(r.uri, r.text));
        else if (r.blob && r.mimeType?.startsWith('image/')) parts.push({ type: 'image_url', image_url: { url: `data:${r.mimeType};base64,${r.blob}` } });
        else addText(`[Attached binary resource ${r.uri} (${r.mimeType ?? 'unknown type'}); it is not shown here.]`);
        break;
      }
      case 'resource_link': {
        const path = b.uri.startsWith('file://') ? safePath(b.uri) : null;
        let inlined = false;
        if (path) {
          try {
            const st = statSync(path);
            if (st.isFile() && st.size <= MAX_INLINE_BYTES) {
              const buf = readFileSync(path);
              if (!buf.subarray(0, 8192).includes(0)) {
                addText(fileBlock(b.uri, buf.toString('utf8')));
                inlined = true;
              }
            }
          } catch {
            /* mention it below */
          }
        }
        if (!inlined) addText(`[The user referenced ${path ?? b.uri}${b.name && b.name !== path ? ` (${b.name})` : ''}; read it with your tools if you need it.]`);
        break;
      }
      default:
        break;
    }
  }
  const text = texts.join('\n\n');
  const onlyText = parts.every((p) => p.type === 'text');
  return { message: { role: 'user', content: onlyText ? text : parts }, text };
}
