import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createRoot } from 'react-dom/client';
import '@xterm/xterm/css/xterm.css';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './App.tsx';
import { ToastProvider } from './ui.tsx';
import { installPluginSdk } from './plugins.ts';

const client = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 5_000 } } });
installPluginSdk();
createRoot(document.getElementById('root')!).render(
  <QueryClientProvider client={client}>
    <ToastProvider>
      <App />
    </ToastProvider>
  </QueryClientProvider>,
);
