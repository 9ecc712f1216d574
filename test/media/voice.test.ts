// /voice on every surface: per-chat reply modes in HERMES_HOME/gateway_voice_mode.json (Hermes's
// file and values), the terminal's state, and clear messages when a recorder or key is missing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { voiceCommandAction } from '../../src/commands/voice-action.ts';
import { cliVoiceState, voiceModeFor, wantsVoiceReply } from '../../src/media/voice.ts';
import { makeServices } from '../tools/helpers.ts';

describe('/voice', () => {
  it('in a chat: on → voice_only, tts → all, off, a bare /voice toggles; kept per chat in gateway_voice_mode.json', async () => {
    const s = makeServices({ platform: 'telegram', origin: { platform: 'telegram', chatId: '123' } });
    assert.match(await voiceCommandAction(s, 'gateway', 'status'), /Voice replies: off — text replies only\nSpeech to text: (unavailable|local)/);
    assert.match(await voiceCommandAction(s, 'gateway', 'on'), /Voice replies: on — a voice message gets a voice reply/);
    assert.deepEqual(JSON.parse(readFileSync(join(s.home, 'gateway_voice_mode.json'), 'utf8')), { 'telegram:123': 'voice_only' });
    await voiceCommandAction(s, 'gateway', 'tts');
    assert.equal(voiceModeFor(s.home, 'telegram:123', s.config), 'all');
    assert.equal(voiceModeFor(s.home, 'telegram:999', s.config), 'off', 'other chats are unaffected');
    await voiceCommandAction(s, 'gateway', '');
    assert.equal(voiceModeFor(s.home, 'telegram:123', s.config), 'off');
    await voiceCommandAction(s, 'gateway', '');
    assert.equal(voiceModeFor(s.home, 'telegram:123', s.config), 'voice_only');
    assert.match(await voiceCommandAction(s, 'gateway', 'join'), /voice channels are not supported/);
    assert.match(await voiceCommandAction(s, 'gateway', 'loud'), /Usage: \/voice/);
  });

  it('reply rules: voice_only answers voice with voice; all answers everything; voice.auto_tts makes all the default', () => {
    assert.equal(wantsVoiceReply('voice_only', true), true);
    assert.equal(wantsVoiceReply('voice_only', false), false);
    assert.equal(wantsVoiceReply('all', false), true);
    assert.equal(wantsVoiceReply('off', true), false);
    const s = makeServices();
    (s.config.voice as { auto_tts: boolean }).auto_tts = true;
    assert.equal(voiceModeFor(s.home, 'discord:1', s.config), 'all');
  });

  it('in the terminal: on/off/tts change the session state and say what is missing', async () => {
    const s = makeServices();
    s.env.PATH = '/nonexistent';
    const on = await voiceCommandAction(s, 'cli', 'on');
    assert.match(on, /Voice mode on, but push-to-talk cannot work yet:\nNo audio recorder found: install sox/);
    assert.match(on, /No speech-to-text provider is available/);
    assert.deepEqual(cliVoiceState(s.slots), { enabled: true, tts: false });
    assert.match(await voiceCommandAction(s, 'cli', 'tts'), /Spoken replies on, but no audio player was found/);
    assert.match(await voiceCommandAction(s, 'cli', 'status'), /Voice mode: on · spoken replies: on\nRecorder: none \(install sox or alsa-utils\)/);
    assert.match(await voiceCommandAction(s, 'cli', 'off'), /Voice mode off/);
    assert.deepEqual(cliVoiceState(s.slots), { enabled: false, tts: false });
  });
});
