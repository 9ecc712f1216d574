// Starts loading the TUI's UI code (Ink, React, the components) while the session is still being
// set up. Only in the bundle, where React's production build is fixed at build time: from the
// sources React reads NODE_ENV when it loads, which run.ts sets around its own import.

export function preloadTui(): void {
  if (process.env.NODE_ENV === 'production') void import('./components/App.ts').catch(() => undefined);
}
