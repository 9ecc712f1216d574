// The built-in tools. A tool is one file; adding one here makes it available to toolsets.
import { ToolRegistry } from './registry.ts';
import readFile from './read-file.ts';
import terminal from './terminal.ts';
import todo from './todo.ts';
import memory from './memory.ts';
import sessionSearch from './session-search.ts';
import { skillManage, skillsList, skillView } from './skills.ts';

export function builtinRegistry(): ToolRegistry {
  const r = new ToolRegistry();
  for (const def of [readFile, todo, terminal, memory, sessionSearch, skillsList, skillView, skillManage]) r.register(def);
  return r;
}
