// `on_skill_lifecycle`: after an authoritative change to a skill's usage state — loaded with
// skill_view, invoked as a /command, created, patched or deleted with skill_manage — plugins hear the
// fact with Hermes's fields. Light: the skills tools import it; the payload is built only when a
// plugin registered the hook.
import { isAgentCreated, loadUsage } from '../state/skill-usage.ts';
import { notifyPluginHook, pluginHooksWant } from './state.ts';

export type SkillAction = 'loaded' | 'used' | 'created' | 'patched' | 'deleted';

const EVENT = ['on_skill_lifecycle'];

export function skillLifecycle(home: string, action: SkillAction, skillName: string, ids: { sessionId?: string; taskId?: string } = {}): void {
  if (!pluginHooksWant(home, EVENT)) return;
  notifyPluginHook(home, EVENT[0], () => {
    const rec = loadUsage(home)[skillName];
    const uses = Number(rec?.use_count ?? 0) + Number(rec?.view_count ?? 0);
    const reused = uses > 1;
    return {
      action,
      skill_name: skillName,
      provenance: skillName.includes(':') ? 'plugin' : isAgentCreated(home, skillName) ? 'agent_created' : 'upstream',
      task_id: ids.taskId ?? null,
      session_id: ids.sessionId ?? null,
      use_count: Number(rec?.use_count ?? 0),
      reused,
      reuse_after_patch: reused && Number(rec?.patch_count ?? 0) > 0,
    };
  });
}
