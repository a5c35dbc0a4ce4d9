import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { ApiError } from './api/client';
import { SessionProvider } from './api/session';
import './app/styles.css';

// Reads are cached by React Query (docs/libraries.md) under keys that say what
// they are, made by each feature's key factory from the roots in api/keys.ts:
// ['space', slug, …] for everything in a Space (the Space feed marks those
// stale as events arrive, api/live.tsx), ['spaces'], ['me', …], ['inbox'].
// Writes are mutations, which never retry: a write is the person's to repeat.
const queries = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // A refusal will not change by asking again; a lost connection may.
      retry: (count, err) => count < 2 && err instanceof ApiError && err.status === 0,
      refetchOnWindowFocus: false,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
