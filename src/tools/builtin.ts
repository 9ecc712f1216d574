// The built-in tools. A tool is one file; adding one here makes it available to toolsets.
import clarify from './clarify.ts';
import cronjob from './cronjob.ts';
import delegateTask from './delegate.ts';
import executeCode from './execute-code.ts';
import patch from './patch.ts';
import processTool from './process.ts';
import readFile from './read-file.ts';
import { ToolRegistry } from './registry.ts';
import searchFiles from './search-files.ts';
import sendMessage from './send-message.ts';
import terminal from './terminal.ts';
import todo from './todo.ts';
import vision from './vision.ts';
import webExtract from './web-extract.ts';
import webSearch from './web-search.ts';
import writeFile from './write-file.ts';
import memory from './memory.ts';
import sessionSearch from './session-search.ts';
import { skillManage, skillsList, skillView } from './skills.ts';
import kanbanBlock from './kanban-block.ts';
import kanbanComment from './kanban-comment.ts';
import kanbanComplete from './kanban-complete.ts';
import kanbanCreate from './kanban-create.ts';
import kanbanHeartbeat from './kanban-heartbeat.ts';
import kanbanLink from './kanban-link.ts';
import kanbanList from './kanban-list.ts';
import kanbanRequestChanges from './kanban-request-changes.ts';
import kanbanRequestReview from './kanban-request-review.ts';
import kanbanShow from './kanban-show.ts';
import kanbanUnblock from './kanban-unblock.ts';
import haCallService from './ha-call-service.ts';
import haGetState from './ha-get-state.ts';
import haListEntities from './ha-list-entities.ts';
import haListServices from './ha-list-services.ts';

export function builtinRegistry(): ToolRegistry {
  const r = new ToolRegistry();
  for (const def of [readFile, writeFile, patch, searchFiles, terminal, processTool, webSearch, webExtract, vision, todo, clarify, executeCode, delegateTask, cronjob, sendMessage]) r.register(def);
  for (const def of [memory, sessionSearch, skillsList, skillView, skillManage]) r.register(def);
  for (const def of [kanbanShow, kanbanComplete, kanbanBlock, kanbanComment, kanbanHeartbeat, kanbanRequestReview, kanbanRequestChanges, kanbanCreate, kanbanList, kanbanUnblock, kanbanLink]) r.register(def);
  for (const def of [haListEntities, haGetState, haListServices, haCallService]) r.register(def);
  return r;
}
