// test-timeout: 30
// The one Markdown tokenizer (src/gateway/markdown/tokens.ts) and its serializer per platform
// family (serializers.ts): a table of what the model writes and what each family sends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toMatrixHtml, toPlainText, toSlackMrkdwn, toTelegramHtml, toWhatsApp } from '../../src/gateway/markdown/serializers.ts';
import { tokenize } from '../../src/gateway/markdown/tokens.ts';

type Row = { md: string; tg: string; mx: string; sl: string; wa: string; pl: string };
const TABLE: Record<string, Row> = {
  'heading and link': {
    md: '# Title\n[x](https://a.b)',
    tg: '<b>Title</b>\n<a href="https://a.b">x</a>',
    mx: '<strong>Title</strong><br><a href="https://a.b">x</a>',
    sl: '*Title*\n<https://a.b|x>',
    wa: '*Title*\nx (https://a.b)',
    pl: 'Title\nx (https://a.b)',
  },
  'bold, italics, strikethrough, inline code': {
    md: 'a **b** c *d* e _f_ g ~~h~~ `i`',
    tg: 'a <b>b</b> c <i>d</i> e <i>f</i> g <s>h</s> <code>i</code>',
    mx: 'a <strong>b</strong> c <em>d</em> e <em>f</em> g <del>h</del> <code>i</code>',
    sl: 'a *b* c _d_ e _f_ g ~h~ `i`',
    wa: 'a *b* c _d_ e _f_ g ~h~ `i`',
    pl: 'a b c *d* e _f_ g ~~h~~ i',
  },
  'nested emphasis': {
    md: '**bold *it* more** and *it __b__ x*',
    tg: '<b>bold <i>it</i> more</b> and <i>it <b>b</b> x</i>',
    mx: '<strong>bold <em>it</em> more</strong> and <em>it <strong>b</strong> x</em>',
    sl: '*bold _it_ more* and _it *b* x_',
    wa: '*bold _it_ more* and _it *b* x_',
    pl: 'bold *it* more and *it b x*',
  },
  'bold italics': {
    md: '***both*** then **b**',
    tg: '<b><i>both</i></b> then <b>b</b>',
    mx: '<strong><em>both</em></strong> then <strong>b</strong>',
    sl: '*_both_* then *b*',
    wa: '*_both_* then *b*',
    pl: '*both* then b',
  },
  'marks that are not emphasis': {
    md: 'snake_case_name, 2*3*4, 2 ** 3 ** 4, a * b * c, __init__x, ******, ***',
    tg: 'snake_case_name, 2*3*4, 2 ** 3 ** 4, a * b * c, __init__x, ******, ***',
    mx: 'snake_case_name, 2*3*4, 2 ** 3 ** 4, a * b * c, __init__x, ******, ***',
    sl: 'snake_case_name, 2*3*4, 2 ** 3 ** 4, a * b * c, __init__x, ******, ***',
    wa: 'snake_case_name, 2*3*4, 2 ** 3 ** 4, a * b * c, __init__x, ******, ***',
    pl: 'snake_case_name, 2*3*4, 2 ** 3 ** 4, a * b * c, __init__x, ******, ***',
  },
  'code block with a language, characters each platform escapes': {
    md: 'run:\n```js\nif (a < b && c > d) x = "*not bold*";\n```\ndone',
    tg: 'run:\n<pre><code class="language-js">if (a &lt; b &amp;&amp; c &gt; d) x = "*not bold*";</code></pre>\ndone',
    mx: 'run:<br><pre><code class="language-js">if (a &lt; b &amp;&amp; c &gt; d) x = "*not bold*";</code></pre><br>done',
    sl: 'run:\n```\nif (a &lt; b &amp;&amp; c &gt; d) x = "*not bold*";\n```\ndone',
    wa: 'run:\n```\nif (a < b && c > d) x = "*not bold*";\n```\ndone',
    pl: 'run:\nif (a < b && c > d) x = "*not bold*";\ndone',
  },
  'code block without a language': {
    md: '```\nplain **text**\n```',
    tg: '<pre>plain **text**</pre>',
    mx: '<pre><code>plain **text**</code></pre>',
    sl: '```\nplain **text**\n```',
    wa: '```\nplain **text**\n```',
    pl: 'plain **text**',
  },
  'a code block still open (a streamed reply)': {
    md: 'so:\n```py\nprint(1 < 2)',
    tg: 'so:\n<pre><code class="language-py">print(1 &lt; 2)</code></pre>',
    mx: 'so:<br><pre><code class="language-py">print(1 &lt; 2)</code></pre>',
    sl: 'so:\n```\nprint(1 &lt; 2)',
    wa: 'so:\n```\nprint(1 < 2)',
    pl: 'so:\nprint(1 < 2)',
  },
  'text the platform must see escaped': {
    md: 'A & B <tag> "q" `x<y`',
    tg: 'A &amp; B &lt;tag&gt; "q" <code>x&lt;y</code>',
    mx: 'A &amp; B &lt;tag&gt; "q" <code>x&lt;y</code>',
    sl: 'A &amp; B &lt;tag&gt; "q" `x&lt;y`',
    wa: 'A & B <tag> "q" `x<y`',
    pl: 'A & B <tag> "q" x<y',
  },
  'links: a marked label, an address with & and ", another scheme': {
    md: 'see [**the** docs](https://x.y/?a=1&b="2") or [ftp](ftp://x) or [https://a.b](https://a.b)',
    tg: 'see <a href="https://x.y/?a=1&amp;b=&quot;2&quot;"><b>the</b> docs</a> or [ftp](ftp://x) or <a href="https://a.b">https://a.b</a>',
    mx: 'see <a href="https://x.y/?a=1&amp;b=&quot;2&quot;"><strong>the</strong> docs</a> or [ftp](ftp://x) or <a href="https://a.b">https://a.b</a>',
    sl: 'see <https://x.y/?a=1&b="2"|the docs> or [ftp](ftp://x) or <https://a.b|https://a.b>',
    wa: 'see *the* docs (https://x.y/?a=1&b="2") or [ftp](ftp://x) or https://a.b',
    pl: 'see the docs (https://x.y/?a=1&b="2") or [ftp](ftp://x) or https://a.b',
  },
  'a heading with bold inside, blank lines': {
    md: '## Plan **now**\n\n\n\nnext',
    tg: '<b>Plan now</b>\n\n\n\nnext',
    mx: '<strong>Plan now</strong><br><br><br><br>next',
    sl: '*Plan now*\n\n\n\nnext',
    wa: '*Plan now*\n\n\n\nnext',
    pl: 'Plan now\n\nnext',
  },
  'code on one line between triple backticks': {
    md: 'use ```npm test``` here',
    tg: 'use <code>npm test</code> here',
    mx: 'use <code>npm test</code> here',
    sl: 'use `npm test` here',
    wa: 'use `npm test` here',
    pl: 'use npm test here',
  },
};

describe('Markdown for chat platforms', () => {
  for (const [name, r] of Object.entries(TABLE)) {
    it(name, () => {
      assert.equal(toTelegramHtml(r.md), r.tg, 'Telegram HTML');
      assert.equal(toMatrixHtml(r.md), r.mx, 'Matrix HTML');
      assert.equal(toSlackMrkdwn(r.md), r.sl, 'Slack mrkdwn');
      assert.equal(toWhatsApp(r.md), r.wa, 'WhatsApp');
      assert.equal(toPlainText(r.md), r.pl, 'plain text');
    });
  }

  it('tokenizes once into fences, headings and inline nodes', () => {
    assert.deepEqual(tokenize('# Hi *you*\n```sh\nls\n```\n[a](https://b.c)'), [
      { t: 'heading', level: 1, children: [{ t: 'text', text: 'Hi ' }, { t: 'em', mark: '*', children: [{ t: 'text', text: 'you' }] }] },
      { t: 'text', text: '\n' },
      { t: 'fence', lang: 'sh', body: 'ls\n', closed: true },
      { t: 'text', text: '\n' },
      { t: 'link', url: 'https://b.c', children: [{ t: 'text', text: 'a' }] },
    ]);
    // A ``` in the middle of a sentence opens nothing unless it is closed.
    assert.deepEqual(tokenize('type ``` then\nEnter'), [{ t: 'text', text: 'type ``` then\nEnter' }]);
  });

  it('keeps every character of long text and stays fast', () => {
    const para = 'Some **bold** and *italic* text with `code`, a [link](https://x.y) and 2*3*4 maths. ';
    const md = `${para.repeat(60)}\n\n\`\`\`js\n${'console.log("x");\n'.repeat(100)}\`\`\`\n`;
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) toTelegramHtml(md);
    assert.ok(performance.now() - t0 < 2000, 'twenty 10 KB conversions in well under 2 s');
    assert.equal(toPlainText(md).replace(/\s+/g, ''), md.replace(/```js|```/g, '').replace(/\*\*|`/g, '').replace(/\*italic\*/g, '*italic*').replace(/\[link\]\((https:\/\/x\.y)\)/g, 'link ($1)').replace(/\s+/g, ''));
  });
});
