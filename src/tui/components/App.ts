// The TUI's root component. Full screen: the transcript fills the screen above the input (or a
// request's modal) and the status bar; pickers take the whole screen. Inline (copy-friendly): what is
// finished goes to the terminal's scrollback as it completes (<Static>), and only the live part
// (the answer still streaming, running tools, the input, the status bar) is redrawn.

import { createElement as h, useSyncExternalStore, type ReactElement } from 'react';
import { Box, render, Static, Text, useApp, useCursor, type Instance } from 'ink';
import { menuLines } from '../../cli/repl/completion.ts';
import { fitTail } from '../../cli/repl/width.ts';
import type { TuiController } from '../controller.ts';
import { ApprovalModal, approvalLines } from './ApprovalModal.ts';
import { ClarifyModal, clarifyLines } from './ClarifyModal.ts';
import { CompletionMenu } from './CompletionMenu.ts';
import { InputBox, inputView } from './InputBox.ts';
import { Lines } from './Lines.ts';
import { MODAL_CHROME } from './Modal.ts';
import { ModelPicker, modelPickerView } from './ModelPicker.ts';
import type { PickerView } from './Picker.ts';
import { SecretModal, secretLines } from './SecretModal.ts';
import { SessionPicker, sessionPickerView } from './SessionPicker.ts';
import { SkillsBrowser, skillsBrowserView } from './SkillsBrowser.ts';
import { StatusBar, statusLine } from './StatusBar.ts';
import { TranscriptView } from './TranscriptView.ts';

interface Bottom {
  element: ReactElement;
  rows: number;
  /** Cursor inside the bottom part, or undefined (hidden). */
  cursor?: { x: number; y: number };
}

/** The input with its menu and hint, or the modal of the first open request. */
function bottom(c: TuiController, cols: number, rows: number): Bottom {
  const s = c.style;
  const t = c.o.theme;
  const req = c.requests[0];
  if (req) {
    const inner = Math.max(10, cols - MODAL_CHROME.cols);
    if (req.request.kind === 'approval') {
      const lines = approvalLines(req, c, inner, Math.max(4, rows - 8));
      return { element: h(ApprovalModal, { lines, color: t.warn }), rows: lines.length + MODAL_CHROME.rows };
    }
    const v = req.request.kind === 'clarify' ? clarifyLines(req, c, inner) : secretLines(req, c, inner);
    const el = req.request.kind === 'clarify' ? h(ClarifyModal, { lines: v.lines, color: t.accent }) : h(SecretModal, { lines: v.lines, color: t.accent });
    return { element: el, rows: v.lines.length + MODAL_CHROME.rows, cursor: { x: 2 + v.cursor.col, y: 1 + v.cursor.line } };
  }
  const input = inputView(c, cols, Math.max(1, Math.floor(rows / 3)));
  const menu = c.composer.menu ? menuLines(c.composer.menu, s, cols, Math.max(1, Math.min(8, rows - input.lines.length - 6))) : [];
  const hint = c.hint && c.hint.until > c.now() ? [s.dim(c.hint.text)] : [];
  const element = h(Box, { flexDirection: 'column', flexShrink: 0 }, menu.length ? h(CompletionMenu, { lines: menu }) : null, h(InputBox, { view: input }), hint.length ? h(Lines, { lines: hint }) : null);
  return { element, rows: menu.length + input.lines.length + hint.length, cursor: { x: input.cursor.col, y: menu.length + input.cursor.line } };
}

function overlayView(c: TuiController, cols: number, height: number): { view: PickerView; element: ReactElement } | null {
  const ov = c.overlay;
  const s = c.style;
  if (!ov) return null;
  if (ov.kind === 'sessions') {
    const view = sessionPickerView(ov, s, cols, height);
    return { view, element: h(SessionPicker, { view, height }) };
  }
  if (ov.kind === 'models') {
    const view = modelPickerView(ov, s, cols, height);
    return { view, element: h(ModelPicker, { view, height }) };
  }
  const view = skillsBrowserView(ov, s, cols, height);
  return { view, element: h(SkillsBrowser, { view, height }) };
}

function FullScreen({ c }: { c: TuiController }): ReactElement {
  const { setCursorPosition } = useCursor();
  const { cols, rows } = c.o.size();
  const status = h(StatusBar, { line: statusLine(c, cols) });
  const ov = overlayView(c, cols, rows - 1);
  if (ov && !c.requests.length) {
    c.layout.listRows = ov.view.listRows;
    setCursorPosition({ x: Math.min(cols - 1, ov.view.cursor.col), y: ov.view.cursor.line });
    return h(Box, { flexDirection: 'column', width: cols, height: rows }, ov.element, status);
  }
  const b = bottom(c, cols, rows);
  const height = Math.max(1, rows - 1 - b.rows);
  const win = c.transcript.window(cols, height, c.scrollTop, c.renderContext(), c.selected);
  c.layout = { ...c.layout, transcriptHeight: height, owners: win.owners, top: win.top, total: win.total };
  setCursorPosition(b.cursor ? { x: Math.min(cols - 1, b.cursor.x), y: height + b.cursor.y } : undefined);
  return h(Box, { flexDirection: 'column', width: cols, height: rows }, h(TranscriptView, { lines: win.lines, height }), b.element, status);
}

function Inline({ c }: { c: TuiController }): ReactElement {
  const { setCursorPosition } = useCursor();
  const { cols, rows } = c.o.size();
  c.takeFinished(cols);
  const status = h(StatusBar, { line: statusLine(c, cols) });
  const printed = h(Static<{ id: number; text: string }>, { items: c.printed.slice(), children: (chunk) => h(Text, { key: chunk.id }, chunk.text) });
  const ov = !c.requests.length ? overlayView(c, cols, Math.max(6, Math.min(rows - 3, 20))) : null;
  if (ov) {
    c.layout.listRows = ov.view.listRows;
    setCursorPosition({ x: Math.min(cols - 1, ov.view.cursor.col), y: ov.view.cursor.line });
    return h(Box, { flexDirection: 'column', width: cols }, printed, ov.element, status);
  }
  const b = bottom(c, cols, rows);
  const ctx = c.renderContext();
  const live = c.liveEntries().flatMap(({ entry, skip }) => c.transcript.render(entry, cols, ctx, false).slice(skip));
  const shown = fitTail(live, Math.max(0, rows - 2 - b.rows), cols);
  c.layout = { ...c.layout, transcriptHeight: Math.max(1, rows - 1 - b.rows), owners: [], top: 0, total: 0 };
  setCursorPosition(b.cursor ? { x: Math.min(cols - 1, b.cursor.x), y: shown.length + b.cursor.y } : undefined);
  return h(Box, { flexDirection: 'column', width: cols }, printed, shown.length ? h(Lines, { lines: shown }) : null, b.element, status);
}

export function App({ c }: { c: TuiController }): ReactElement | null {
  useSyncExternalStore(c.subscribe, c.version);
  const app = useApp();
  c.inkSuspend = (fn) => app.suspendTerminal(fn);
  if (c.quitting) return null;
  return c.o.fullscreen ? h(FullScreen, { c }) : h(Inline, { c });
}

/** Draws the app on the terminal (Ink never reads the keyboard: `stdin` is a stream it leaves alone). */
export function mount(c: TuiController, io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream; stdin: NodeJS.ReadStream }): Instance {
  return render(h(App, { c }), {
    ...io,
    exitOnCtrlC: false,
    patchConsole: true,
    alternateScreen: c.o.fullscreen,
    incrementalRendering: c.o.fullscreen,
    maxFps: 60,
  });
}
