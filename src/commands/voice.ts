// /voice [on|off|tts|status]: in the terminal, push-to-talk (the record key, Ctrl+B) and spoken
// replies; in a chat, whether replies come back as voice notes (off | voice_only | all, kept per
// chat in HERMES_HOME/gateway_voice_mode.json as Hermes does).
import type { CommandDef } from './registry.ts';

export function voiceCommand(): CommandDef {
  return {
    name: 'voice',
    args: '[on|off|tts|status]',
    description: 'voice mode: talk with push-to-talk and hear replies (terminal), or get replies as voice notes (chats)',
    category: 'config',
    surfaces: ['cli', 'gateway'],
    midTurn: true,
    completions: ['on', 'off', 'tts', 'status'],
    async run(ctx, args) {
      const { voiceCommandAction } = await import('./voice-action.ts');
      return { output: await voiceCommandAction(ctx.session.services, ctx.surface, args) };
    },
  };
}
