// Placeholder replaced once the LLM layer lands (see issue 2 benchmarks).
import type { Bench } from './lib.ts';
const bench: Bench = async () => [];
export default bench;
