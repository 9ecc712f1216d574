// One serializer per platform family over the one tokenizer (tokens.ts): the model's Markdown as
// each chat shows it. Platforms that render Markdown themselves (Discord, Mattermost, Teams,
// DingTalk, Feishu, QQ, WeCom) are sent the text as it is.
//
//   Telegram     HTML (parse_mode HTML): <b> <i> <s> <code> <pre> <a>; & < > escaped everywhere
//   Matrix       the HTML subset clients render (formatted_body): <strong> <em> <del> …, newlines <br>
//   Slack        mrkdwn: *bold* _italic_ ~struck~ `code` ``` blocks, <url|label>; & < > escaped
//   WhatsApp     *bold* _italic_ ~struck~ `code` ``` blocks; a link is `label (url)`
//   plain text   SMS, iMessage (BlueBubbles), LINE, IRC: marks dropped, links keep their address
import { tokenize, type Inline, type Node } from './tokens.ts';

export const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeHtml(s).replace(/"/g, '&quot;');

interface Writer {
  text(s: string): string;
  code(s: string): string;
  strong(inner: string, n: Extract<Inline, { t: 'strong' }>): string;
  em(inner: string, n: Extract<Inline, { t: 'em' }>): string;
  strike(inner: string): string;
  link(inner: string, url: string, label: string): string;
  heading(inner: string, level: number): string;
  fence(body: string, lang: string, closed: boolean): string;
  /** Inside a heading: bold that would be bold twice is written once. */
  plainStrongInHeading?: boolean;
}

/** The text of inline nodes with no marks (a link's label as words). */
export function inlineText(nodes: Inline[]): string {
  return nodes.map((n) => (n.t === 'text' || n.t === 'code' ? n.text : inlineText(n.children))).join('');
}

function write(nodes: Node[], w: Writer, inHeading = false): string {
  let out = '';
  for (const n of nodes) {
    switch (n.t) {
      case 'text':
        out += w.text(n.text);
        break;
      case 'code':
        out += w.code(n.text);
        break;
      case 'strong': {
        const inner = write(n.children, w, inHeading);
        out += inHeading && w.plainStrongInHeading ? inner : w.strong(inner, n);
        break;
      }
      case 'em':
        out += w.em(write(n.children, w, inHeading), n);
        break;
      case 'strike':
        out += w.strike(write(n.children, w, inHeading));
        break;
      case 'link':
        out += w.link(write(n.children, w, inHeading), n.url, inlineText(n.children));
        break;
      case 'heading':
        out += w.heading(write(n.children, w, true), n.level);
        break;
      case 'fence':
        out += w.fence(n.body, n.lang, n.closed);
        break;
    }
  }
  return out;
}

const render = (w: Writer) => (md: string) => write(tokenize(md), w);

/** Telegram's HTML (sendMessage with parse_mode HTML). */
export const toTelegramHtml = render({
  text: escapeHtml,
  code: (s) => `<code>${escapeHtml(s)}</code>`,
  strong: (s) => `<b>${s}</b>`,
  em: (s) => `<i>${s}</i>`,
  strike: (s) => `<s>${s}</s>`,
  link: (s, url) => `<a href="${escapeAttr(url)}">${s}</a>`,
  heading: (s) => `<b>${s}</b>`,
  plainStrongInHeading: true,
  fence: (body, lang) => {
    const code = escapeHtml(body.replace(/\n$/, ''));
    return lang ? `<pre><code class="language-${escapeAttr(lang)}">${code}</code></pre>` : `<pre>${code}</pre>`;
  },
});

/** The HTML subset Matrix clients render (`formatted_body`, format org.matrix.custom.html). */
export const toMatrixHtml = render({
  text: (s) => escapeHtml(s).replace(/\n/g, '<br>'),
  code: (s) => `<code>${escapeHtml(s)}</code>`,
  strong: (s) => `<strong>${s}</strong>`,
  em: (s) => `<em>${s}</em>`,
  strike: (s) => `<del>${s}</del>`,
  link: (s, url) => `<a href="${escapeAttr(url)}">${s}</a>`,
  heading: (s) => `<strong>${s}</strong>`,
  plainStrongInHeading: true,
  fence: (body, lang) => `<pre><code${lang ? ` class="language-${escapeAttr(lang)}"` : ''}>${escapeHtml(body.replace(/\n$/, ''))}</code></pre>`,
});

/** Slack's mrkdwn, which wants &, < and > escaped (its own `<url|label>` links use them). */
const escapeSlack = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
export const toSlackMrkdwn = render({
  text: escapeSlack,
  code: (s) => `\`${escapeSlack(s)}\``,
  strong: (s) => `*${s}*`,
  em: (s) => `_${s}_`,
  strike: (s) => `~${s}~`,
  // Slack formats no marks inside a label; `|` and `>` would end the address.
  link: (_s, url, label) => `<${url.replace(/\|/g, '%7C').replace(/>/g, '%3E')}|${escapeSlack(label)}>`,
  heading: (s) => `*${s}*`,
  plainStrongInHeading: true,
  fence: (body, _lang, closed) => `\`\`\`\n${escapeSlack(body)}${closed ? '```' : ''}`,
});

/** WhatsApp's formatting (its own marks; links as plain addresses, which it makes clickable). */
export const toWhatsApp = render({
  text: (s) => s,
  code: (s) => `\`${s}\``,
  strong: (s) => `*${s}*`,
  em: (s) => `_${s}_`,
  strike: (s) => `~${s}~`,
  link: (s, url, label) => (label === url ? url : `${s} (${url})`),
  heading: (s) => `*${s}*`,
  plainStrongInHeading: true,
  fence: (body, _lang, closed) => `\`\`\`\n${body}${closed ? '```' : ''}`,
});

/** Plain text (SMS, iMessage, LINE, IRC): bold and code marks go, *italics* stay as typed, links keep their address. */
export function toPlainText(md: string): string {
  return write(tokenize(md), {
    text: (s) => s,
    code: (s) => s,
    strong: (s) => s,
    em: (s, n) => `${n.mark}${s}${n.mark}`,
    strike: (s) => `~~${s}~~`,
    link: (s, url, label) => (label === url ? url : `${s} (${url})`),
    heading: (s) => s,
    fence: (body) => body.replace(/\n$/, ''),
  }).replace(/\n{3,}/g, '\n\n');
}
