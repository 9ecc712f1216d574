// Row shapes the dashboard's API sends as the state code makes them: a search hit and the delivery
// ledger's counts. Types only, with no imports: src/dashboard/api-types.ts uses them, and the web
// app's tsconfig (no Node types) checks that file.

/** A message that matched a session search (SessionStore.searchMessages). */
export interface SearchHit {
  id: number;
  session_id: string;
  role: string;
  timestamp: number;
  /** The matching text with >>>match<<< markers. */
  snippet: string;
  /** The message before and after, 200 characters each. */
  context: { role: string; content: string }[];
  source: string;
  model: string | null;
  title: string | null;
  session_started: number;
}

/** The gateway's delivery ledger over a window (the last 7 days by default; docs/reliability.md). */
export interface LedgerCounts {
  received: number;
  answered: number;
  pending: number;
  replayed: number;
  givenUp: number;
}
