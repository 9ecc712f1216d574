// Titles: after the first completed turn of a stored session, the auxiliary model (title_generation)
// names the conversation in the background, unless the session already has a title.
import { messageText } from '../agent/repair.ts';
import type { TurnResult } from '../agent/types.ts';
import type { Message } from '../llm/types.ts';
import { collectText } from './session-aux.ts';
import type { AuxModel, Spawn, StateHost } from './state-host.ts';

const TITLE_SYSTEM =
  'You name conversations. Reply with a short, specific title of 3 to 7 words for the conversation below: no quotes, no trailing punctuation, nothing else.';

export class Titles {
  private readonly host: StateHost;
  private readonly aux: (task: string) => AuxModel | null;
  private titled: boolean;

  constructor(host: StateHost, aux: (task: string) => AuxModel | null) {
    this.host = host;
    this.aux = aux;
    // A stored session that already has a title is looked up (through the store interface, so on
    // either backend) before a title is generated: see afterTurn.
    this.titled = !!host.options.history?.length;
  }

  /** After a turn the background may follow up (not interrupted, background tasks allowed). */
  afterTurn(user: Message, result: TurnResult, spawn: Spawn): void {
    const o = this.host.options;
    if (!this.titled && result.completed && o.store) {
      this.titled = true;
      const db = o.store;
      const id = this.host.id;
      const first = messageText(user.content).slice(0, 2000);
      const answer = result.finalText.slice(0, 2000);
      spawn(async () => {
        if ((await db.getSession(id))?.title) return;
        const aux = this.aux('title_generation');
        if (!aux) return;
        const raw = await collectText(aux.stream, {
          model: aux.model,
          system: TITLE_SYSTEM,
          messages: [{ role: 'user', content: `User: ${first}\n\nAssistant: ${answer}` }],
          tools: [],
          maxTokens: 40,
        });
        const t = raw.split('\n')[0].replace(/^["'#*\s]+|["'.*\s]+$/g, '').slice(0, 80);
        if (!t || (await db.getSession(id))?.title) return;
        const title = await db.uniqueTitle(t);
        if (title) await db.setTitle(id, title);
      });
    }
  }

  /** A resumed session keeps its title (no new one is generated); /new starts untitled. */
  mark(v: boolean): void {
    this.titled = v;
  }
}
