// Ranking for tool_search: BM25 over each tool's name, toolset, description and parameter names,
// with English words reduced to their stems (a Porter-style suffix stripper written here), so
// "scheduling jobs" finds a tool described as "schedule a job", and words every tool shares weigh
// less than the rare ones that tell tools apart.

export interface RankDoc {
  name: string;
  toolset: string;
  description: string;
  params?: string[];
}

const STOP = new Set(
  'a an and are as at be by can could do does for from get give have how i if in into is it its let me my of on or our please should so some that the their them then there these this to up us use using want we what when where which who will with would you your'.split(' '),
);

const VOWEL = /[aeiou]/;

/** The Porter measure m of a stem: the number of vowel-consonant sequences ([C](VC)^m[V]). */
function measure(s: string): number {
  const form = s.replace(/[^aeiouy]/g, 'c').replace(/[aeiou]/g, 'v').replace(/(?<=c)y|^y/g, 'c').replace(/y/g, 'v');
  return (form.replace(/c+/g, 'C').replace(/v+/g, 'V').match(/VC/g) ?? []).length;
}
const hasVowel = (s: string) => VOWEL.test(s) || /[^aeiou]y/.test(s);
const doubleConsonant = (s: string) => s.length > 1 && s[s.length - 1] === s[s.length - 2] && !/[aeiou]/.test(s[s.length - 1]);
/** Ends consonant-vowel-consonant, the last not w, x or y (hop, but not hoop or snow). */
const cvc = (s: string) => /[^aeiou][aeiouy][^aeiouwxy]$/.test(s);

const STEP2: [string, string][] = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['abli', 'able'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'],
  ['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble'],
];
const STEP3: [string, string][] = [['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', '']];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

function replaceSuffix(w: string, rules: [string, string][], minMeasure: number): string {
  for (const [suf, rep] of rules) if (w.endsWith(suf)) return measure(w.slice(0, -suf.length)) > minMeasure - 1 ? w.slice(0, -suf.length) + rep : w;
  return w;
}

/** The stem of a lower-case English word (Porter's five steps; words of two letters or fewer stay). */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 2 || !/^[a-z]+$/.test(w)) return w;
  // 1a: plurals
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  // 1b: -eed, -ed, -ing
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else {
    const m = /(ed|ing)$/.exec(w);
    if (m && hasVowel(w.slice(0, -m[1].length))) {
      w = w.slice(0, -m[1].length);
      if (/(at|bl|iz)$/.test(w)) w += 'e';
      else if (doubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
      else if (measure(w) === 1 && cvc(w)) w += 'e';
    }
  }
  // 1c: y → i after a vowel-bearing stem
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  w = replaceSuffix(w, STEP2, 1);
  w = replaceSuffix(w, STEP3, 1);
  // 4: -ment, -ive… when the rest is long enough (m > 1); -ion only after s or t
  for (const suf of STEP4) {
    if (!w.endsWith(suf)) continue;
    const rest = w.slice(0, -suf.length);
    if (measure(rest) > 1 && (suf !== 'ion' || /[st]$/.test(rest))) w = rest;
    break;
  }
  // 5: a final -e, and -ll
  if (w.endsWith('e')) {
    const rest = w.slice(0, -1);
    const m = measure(rest);
    if (m > 1 || (m === 1 && !cvc(rest))) w = rest;
  }
  if (w.endsWith('ll') && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

/** Words of a text: lower case, split on anything not a letter or digit (so snake_case splits), stop words out, stemmed. */
export function terms(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map(stem);
}

/** Field weights: a word in the tool's name says more than one in its description. */
const NAME_WEIGHT = 3;
const TOOLSET_WEIGHT = 2;
const K1 = 1.2;
const B = 0.75;

/** The weighted bag of terms of a tool. */
function bag(d: RankDoc): Map<string, number> {
  const tf = new Map<string, number>();
  const add = (ts: string[], weight: number) => {
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + weight);
  };
  add(terms(d.name), NAME_WEIGHT);
  add(terms(d.toolset), TOOLSET_WEIGHT);
  add(terms(d.description), 1);
  add(terms((d.params ?? []).join(' ')), 1);
  return tf;
}

/**
 * Tools ranked for a query by BM25 (k1 1.2, b 0.75; name words weigh 3, toolset words 2), best
 * first, with their scores; tools that share no term with the query are left out. A query word that
 * only begins a name word ("brow" → browser) counts half.
 */
export function rankBm25<T extends RankDoc>(docs: T[], query: string): { doc: T; score: number }[] {
  const q = [...new Set(terms(query))];
  if (!q.length || !docs.length) return [];
  const bags = docs.map(bag);
  const names = docs.map((d) => terms(`${d.name} ${d.toolset}`));
  const lengths = bags.map((b) => [...b.values()].reduce((x, y) => x + y, 0));
  const avg = lengths.reduce((x, y) => x + y, 0) / docs.length || 1;
  const df = new Map<string, number>();
  for (const b of bags) for (const t of b.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + (docs.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  const out: { doc: T; score: number }[] = [];
  docs.forEach((doc, i) => {
    let score = 0;
    for (const t of q) {
      let f = bags[i].get(t) ?? 0;
      if (!f && t.length >= 3 && names[i].some((n) => n.startsWith(t))) f = NAME_WEIGHT / 2;
      if (!f) continue;
      score += idf(t) * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * lengths[i]) / avg)));
    }
    if (score > 0) out.push({ doc, score });
  });
  // Ties keep catalog order (Array.prototype.sort is stable).
  return out.sort((a, b) => b.score - a.score);
}
