// Plugin tabs in the page: window.__HERMES_PLUGINS__.register(name, Component) from a plugin's
// script, window.__HERMES_PLUGIN_SDK__ for what it may use (React and hooks, fetchJSON with the
// session, the built-in API client). Scripts come from /plugins/<name>/… (same origin, as the CSP
// requires).
import * as React from 'react';
import { api } from './api.ts';

type Component = React.ComponentType<Record<string, never>>;
const registry = new Map<string, Component>();
const listeners = new Set<() => void>();
const loading = new Map<string, Promise<void>>();

export function installPluginSdk(): void {
  const w = window as unknown as Record<string, unknown>;
  w.__HERMES_PLUGINS__ = {
    register(name: string, component: Component) {
      registry.set(name, component);
      listeners.forEach((l) => l());
    },
  };
  w.__HERMES_PLUGIN_SDK__ = {
    React,
    hooks: { useState: React.useState, useEffect: React.useEffect, useMemo: React.useMemo, useCallback: React.useCallback, useRef: React.useRef },
    fetchJSON: (path: string, init?: { method?: string; body?: unknown }) => api(path, init),
  };
}

export function pluginComponent(name: string): Component | undefined {
  return registry.get(name);
}

export function onPluginsChanged(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Loads a plugin's script (and stylesheet) once. */
export function loadPlugin(p: { name: string; entry: string; css: string | null }): Promise<void> {
  let l = loading.get(p.name);
  if (!l) {
    l = new Promise<void>((resolve, reject) => {
      if (p.css) {
        const link = document.createElement('link');
        link.rel = 'stylesheet';
        link.href = p.css;
        document.head.appendChild(link);
      }
      const s = document.createElement('script');
      s.src = p.entry;
      s.onload = () => resolve();
      s.onerror = () => reject(new Error(`Could not load ${p.entry}`));
      document.head.appendChild(s);
    });
    loading.set(p.name, l);
  }
  return l;
}
