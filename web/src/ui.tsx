// Small shared pieces: loading, error (with its fix), empty states, confirm dialog, toasts.
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { ApiError } from './api.ts';

export function Loading({ what }: { what: string }) {
  return (
    <div className="state loading" role="status">
      <span className="spinner" aria-hidden /> Loading {what}…
    </div>
  );
}

export function ErrorBox({ error, retry }: { error: unknown; retry?: () => void }) {
  const e = error as ApiError;
  return (
    <div className="state error" role="alert">
      <strong>{e?.message ?? String(error)}</strong>
      {e?.fix && <div className="fix">{e.fix}</div>}
      {retry && (
        <button className="btn small" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty">
      <strong>{title}</strong>
      {children && <div className="fix">{children}</div>}
    </div>
  );
}

export function Confirm({ text, yes, onYes, onNo }: { text: string; yes: string; onYes: () => void; onNo: () => void }) {
  return (
    <div className="modal" role="dialog" aria-modal="true">
      <div className="modal-card">
        <p>{text}</p>
        <div className="row end">
          <button className="btn" onClick={onNo}>
            Cancel
          </button>
          <button className="btn danger" onClick={onYes} autoFocus>
            {yes}
          </button>
        </div>
      </div>
    </div>
  );
}

type Toast = { id: number; text: string; kind: 'ok' | 'error' };
const ToastCtx = createContext<(text: string, kind?: 'ok' | 'error') => void>(() => {});

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const show = useCallback((text: string, kind: 'ok' | 'error' = 'ok') => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t, { id, text, kind }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), kind === 'error' ? 8000 : 3500);
  }, []);
  return (
    <ToastCtx.Provider value={show}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} className={`toast ${t.kind}`}>
            {t.text}
          </div>
        ))}
      </div>
    </ToastCtx.Provider>
  );
}

export const useToast = () => useContext(ToastCtx);

/** A message for a failed action: the error and its fix on one line. */
export function failText(e: unknown): string {
  const a = e as ApiError;
  return `${a?.message ?? String(e)}${a?.fix ? ` — ${a.fix}` : ''}`;
}

export function Badge({ children, kind = '' }: { children: ReactNode; kind?: string }) {
  return <span className={`badge ${kind}`}>{children}</span>;
}
