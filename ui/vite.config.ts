import { defineConfig } from 'vitest/config'
import vue from '@vitejs/plugin-vue'

export default defineConfig({
  plugins: [vue()],
  // Relative asset URLs: the same build is served at `/` by our own server and
  // behind TrueNAS's `/_plugins/tengig/` route.
  base: './',
  // `npm run dev`: the page's own /api/current is passed to a `tengig serve` on this machine, so the
  // panel under development logs in where it came from, as the built one does.
  server: {
    proxy: { '/api/current': { target: process.env.TENGIG_SERVE ?? 'http://127.0.0.1:8610', ws: true } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.spec.ts'],
  },
})
