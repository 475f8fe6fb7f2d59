// Drives Debian's chromium (playwright-core, no downloaded browser) through one scenario of the
// panel and prints one JSON line: {ok, error, facts, requests, calls, screenshots}. The assertions live in
// the caller (tests/ui/*.py); a scenario only acts, waits (a wait that times out fails it) and
// reports what it saw.
//
//   node ui/e2e/browser.mjs '{"scenario": "run-verdict", "url": "http://127.0.0.1:8610/", "apiKey": "...", "outDir": "test-output"}'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { SCENARIOS } from './scenarios.mjs'

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']

const config = JSON.parse(process.argv[2] ?? '{}')
const scenario = SCENARIOS[config.scenario]
const report = { ok: false, error: null, facts: {}, requests: [], calls: [], screenshots: [] }

if (!scenario) {
  report.error = `unknown scenario ${JSON.stringify(config.scenario)}; known: ${Object.keys(SCENARIOS).join(', ')}`
  console.log(JSON.stringify(report))
  process.exit(2)
}

mkdirSync(config.outDir, { recursive: true })
const browser = await chromium.launch({ executablePath: config.chromium ?? '/usr/bin/chromium', args: CHROMIUM_ARGS })
const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
page.setDefaultTimeout(config.timeoutMs ?? 15_000)
page.on('request', (r) => report.requests.push(r.url()))
page.on('websocket', (ws) => {
  report.requests.push(ws.url())
  // the JSON-RPC methods the page called (names only: a login frame carries a secret)
  ws.on('framesent', (f) => {
    try {
      const method = JSON.parse(String(f.payload)).method
      if (typeof method === 'string') report.calls.push(method)
    } catch { /* not JSON-RPC */ }
  })
})
const consoleErrors = []
page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()))
page.on('pageerror', (e) => consoleErrors.push(String(e)))

const ctx = {
  config,
  /** The JSON-RPC methods the page has called so far (a scenario reports what it had called at a moment). */
  calls: report.calls,
  async shot(name) {
    const path = join(config.outDir, `${name}.png`)
    await page.screenshot({ path, fullPage: true })
    report.screenshots.push(path)
  },
}

try {
  report.facts = (await scenario(page, ctx)) ?? {}
  report.ok = true
} catch (err) {
  report.error = String(err?.stack ?? err)
  await ctx.shot(`${config.scenario}-failure`).catch(() => {})
} finally {
  report.facts.consoleErrors = consoleErrors
  await browser.close()
}
console.log(JSON.stringify(report))
