import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// Built into dist/dashboard-ui/, which src/dashboard/ serves at /dashboard (no CDN, nothing external).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  plugins: [preact()],
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard-ui', import.meta.url)),
    emptyOutDir: true,
    // Every browser that runs the dashboard supports modulepreload; the polyfill would be dead weight.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
