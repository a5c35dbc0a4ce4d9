import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web app is built into web/dist (git-ignored) and served by the Atrium
// server itself (src/web/static.ts), so it shares the API's origin: the
// session cookie and the same-origin check just work, with no proxy or CORS.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Everything the browser loads comes from our origin; no inline data: fonts or scripts.
    assetsInlineLimit: 0,
  },
  // `vite` (dev server) talks to an Atrium server on the default port.
  server: { proxy: { '/v0': 'http://127.0.0.1:8080' } },
});
