// A plugin's tab: loads its script once, then renders what it registered.
import { useEffect, useState } from 'react';
import { loadPlugin, onPluginsChanged, pluginComponent } from '../plugins.ts';
import { ErrorBox, Loading } from '../ui.tsx';

export default function PluginPage({ plugin }: { plugin: { name: string; label: string; entry: string; css: string | null } }) {
  const [error, setError] = useState<unknown>(null);
  const [, bump] = useState(0);
  useEffect(() => onPluginsChanged(() => bump((n) => n + 1)), []);
  useEffect(() => {
    loadPlugin(plugin).catch(setError);
  }, [plugin.name]);
  const C = pluginComponent(plugin.name);
  if (error) return <ErrorBox error={error} />;
  if (!C) return <Loading what={plugin.label} />;
  return <C />;
}
