// What each browser test does in the panel. Selectors are the components' data-test hooks.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
const T = (name) => `[data-test="${name}"]`

/** The login with an API key (tengig serve's only mechanism); params.username, else root. */
async function logIn(page, ctx, key = ctx.config.apiKey) {
  await page.goto(ctx.config.url)
  await page.check(T('login-mechanism-api-key'))
  await page.fill(T('login-username'), ctx.config.params?.username ?? 'root')
  await page.fill(T('login-key'), key)
  await page.click(T('login-submit'))
}

/** The login with a username and password (params.username, params.password), as on a TrueNAS. */
async function logInWithPassword(page, ctx, password = ctx.config.params.password) {
  await page.check(T('login-mechanism-password'))
  await page.fill(T('login-username'), ctx.config.params.username)
  await page.fill(T('login-password'), password)
  await page.click(T('login-submit'))
}

async function loggedIn(page, ctx) {
  await logIn(page, ctx)
  await page.waitForSelector(T('tabs'))
}

const texts = (page, selector) => page.locator(selector).allInnerTexts()

/**
 * The colour `selector` is drawn in (its CSS `property`, color by default) and the background behind it:
 * the first non-transparent background-color from `behind` up to <html>. Both as computed rgb() strings.
 */
async function colours(page, selector, behind, property = 'color') {
  const fg = await page.locator(selector).first().evaluate((el, prop) => getComputedStyle(el)[prop], property)
  const bg = await page.locator(behind).first().evaluate((el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor
      if (c && c !== 'transparent' && c !== 'rgba(0, 0, 0, 0)') return c
    }
    return 'rgb(255, 255, 255)'
  })
  return { fg, bg }
}

/** Where the login form says it connects (null when it does not say). */
async function shownEndpoint(page) {
  return (await page.locator(T('login-endpoint')).count()) ? page.locator(T('login-endpoint')).innerText() : null
}

/** Waits for a login to end, in the tabs or an error, and reports which, with `facts`. */
async function loginEnded(page, facts) {
  await page.waitForSelector(`${T('tabs')}, ${T('error')}`)
  await page.waitForLoadState('networkidle')
  return {
    ...facts,
    tabs: await page.locator(T('tabs')).count(),
    errors: await texts(page, T('error')),
    storage: await page.evaluate(() => Object.keys(sessionStorage)),
  }
}

export const SCENARIOS = {
  /** A wrong key: the login stays, the refusal is shown in words. */
  async 'bad-key'(page, ctx) {
    await logIn(page, ctx, '1-not-a-real-key')
    await page.waitForSelector(T('error'))
    await ctx.shot('login-refused')
    return { errors: await texts(page, T('error')), tabs: await page.locator(T('tabs')).count() }
  },

  /**
   * Username and password, then the Targets view (tengig.targets.query). params.shot names the screenshot.
   * Also reports that the password is not kept anywhere in the page's storage.
   */
  async 'password-targets'(page, ctx) {
    const p = ctx.config.params
    await page.goto(ctx.config.url)
    await logInWithPassword(page, ctx)
    await page.waitForSelector(T('tabs'))
    await page.click(T('tab-targets'))
    await page.waitForSelector(T('target-hdd-15k-best'))
    await page.waitForLoadState('networkidle')
    await ctx.shot(p.shot ?? 'password-targets')
    const facts = {
      who: await page.locator(`${T('tabs')} .who`).innerText(),
      targets: await texts(page, `${T('targets-table')} tbody tr`),
      errors: await texts(page, T('error')),
      storage: await page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }])),
    }
    // a reload asks again: the mechanism and the username are remembered, the password is not
    await page.reload()
    await page.waitForSelector(T('login-password'))
    facts.afterReload = {
      passwordChosen: await page.locator(T('login-mechanism-password')).isChecked(),
      username: await page.locator(T('login-username')).inputValue(),
      password: await page.locator(T('login-password')).inputValue(),
      tabs: await page.locator(T('tabs')).count(),
    }
    return facts
  },

  /** A wrong password, submitted twice: the login stays, the refusal is shown in words (once). */
  async 'password-refused'(page, ctx) {
    const p = ctx.config.params
    await page.goto(ctx.config.url)
    for (let i = 0; i < 2; i++) { // each attempt is its own connection, closed once refused
      const opened = page.waitForEvent('websocket')
      await logInWithPassword(page, ctx, p.wrongPassword)
      const ws = await opened
      if (!ws.isClosed()) await ws.waitForEvent('close')
      await page.waitForSelector(T('error'))
    }
    await page.waitForLoadState('networkidle')
    await ctx.shot(p.shot ?? 'password-refused')
    return {
      errors: await texts(page, T('error')),
      tabs: await page.locator(T('tabs')).count(),
      targets: await page.locator(T('targets-table')).count(),
      passwordField: await page.locator(T('login-password')).inputValue(),
    }
  },

  /**
   * A login through a link (config.url, e.g. one that adds `?api=ws://elsewhere`): params.secret says
   * what is typed, 'key' (config.apiKey) or 'password' (params.username, params.password). Reports where
   * the form said it connects, and how the login ended: the tabs, or an error.
   */
  async 'login-link'(page, ctx) {
    const p = ctx.config.params
    await page.goto(ctx.config.url)
    await page.waitForSelector(T('login'))
    const endpoint = await shownEndpoint(page)
    if (p.secret === 'password') await logInWithPassword(page, ctx)
    else await logIn(page, ctx)
    return await loginEnded(page, { endpoint })
  },

  /**
   * A tab that remembered an API key (logged in at config.url) follows a link (params.link): the panel
   * logs in again by itself with the key it kept, to wherever it connects.
   */
  async 'remembered-key-link'(page, ctx) {
    await loggedIn(page, ctx)
    const remembered = await page.evaluate(() => Object.keys(sessionStorage))
    await page.goto(ctx.config.params.link)
    return await loginEnded(page, { remembered })
  },

  /**
   * What the page's Content-Security-Policy lets a script open: a websocket to params.other (another
   * port) and one to this page's own /api/current. Each is 'open', 'error' or 'closed' (refused or failed
   * before opening; Chromium fires only `error` for one its policy blocks) or 'threw: ...'.
   */
  async 'csp-websockets'(page, ctx) {
    await page.goto(ctx.config.url)
    await page.waitForSelector(T('login'))
    return await page.evaluate(async (other) => {
      const attempt = (url) => new Promise((resolve) => {
        let ws
        try {
          ws = new WebSocket(url)
        } catch (err) {
          resolve(`threw: ${err.name}`)
          return
        }
        ws.onopen = () => { resolve('open'); ws.close() }
        ws.onerror = () => resolve('error')
        ws.onclose = () => resolve('closed')
      })
      const own = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/current`
      return { other: await attempt(other), own: await attempt(own) }
    }, ctx.config.params.other)
  },

  /** Log in, start a quick benchmark, watch its progress move, land on its verdict. */
  async 'run-verdict'(page, ctx) {
    await loggedIn(page, ctx)
    await page.click(T('tab-run'))
    await page.waitForSelector(`${T('run-target')} option`, { state: 'attached' })
    await page.waitForSelector(`${T('run-system')} option`, { state: 'attached' })
    const p = ctx.config.params ?? {}
    await page.selectOption(T('run-system'), p.system ?? 'lab')  // said, never picked silently
    if (p.repeats) await page.fill(T('run-repeats'), String(p.repeats))
    if (p.netSeconds) await page.fill(T('run-net-seconds'), String(p.netSeconds))
    await page.click(T('run-start'))
    const percents = []
    const descriptions = []
    const stepStates = new Set()
    let midShot = false
    const deadline = Date.now() + (p.runTimeoutMs ?? 150_000)
    while (!/#\/verdict\/\d+/.test(page.url())) {
      if (Date.now() > deadline) throw new Error(`no verdict after ${p.runTimeoutMs ?? 150_000} ms; percents seen ${percents}`)
      if (await page.locator(T('run-failure')).count()) {
        throw new Error(`the run failed: ${await page.locator(T('run-failure')).innerText()}`)
      }
      const percent = await page.locator(T('run-percent')).innerText().catch(() => null)
      if (percent !== null && percents.at(-1) !== Number(percent)) percents.push(Number(percent))
      const d = await page.locator(T('run-description')).innerText().catch(() => null)
      if (d && descriptions.at(-1) !== d) descriptions.push(d)
      for (const s of await page.locator('[data-test^="step-"]').evaluateAll((els) => els.map((e) => `${e.dataset.test}:${e.className}`))) {
        stepStates.add(s)
      }
      const samples = Number((await page.locator(T('run-samples')).innerText().catch(() => '0')).split(' ')[0])
      if (!midShot && Number(percent) >= 40 && samples >= 2) {
        await ctx.shot('run-progress')
        midShot = true
      }
      await page.waitForTimeout(250)
    }
    await page.waitForSelector(T('verdict-summary'))
    await ctx.shot('verdict')
    return {
      url: page.url(),
      percents,
      descriptions,
      stepStates: [...stepStates],
      summary: await page.locator(T('verdict-summary')).innerText(),
      readRow: await page.locator(T('verdict-row-read')).innerText(),
      writeRow: await page.locator(T('verdict-row-write')).innerText(),
      readBars: await texts(page, '[data-test^="ceiling-read-"]'),
      linkProvenance: await page.locator(T('provenance-read-link')).innerText(),
      targetLine: await page.locator(T('target-line-read')).innerText(),
      advice: await texts(page, `${T('advice')} li`),
      errors: await texts(page, T('error')),
    }
  },

  /**
   * A run on the NAS itself that a desktop joins: start it from the form (system local, join 1), read
   * the join command the waiting screen shows, hand it to the caller (params.handoff: a file the caller
   * polls, then runs the command on the desktop), see the desktop in the joined list, land on the verdict.
   */
  async 'run-join'(page, ctx) {
    const p = ctx.config.params ?? {}
    await loggedIn(page, ctx)
    await page.click(T('tab-run'))
    await page.waitForSelector(`${T('run-target')} option`, { state: 'attached' })
    await page.waitForSelector(`${T('run-system')} option[value="local"]`, { state: 'attached' })
    await page.selectOption(T('run-system'), 'local')
    await page.selectOption(T('run-kind'), p.kind ?? 'net')
    await page.fill(T('run-join'), String(p.join ?? 1))
    if (p.share) await page.fill(T('run-share'), p.share)
    if (p.repeats) await page.fill(T('run-repeats'), String(p.repeats))
    if (p.netSeconds) await page.fill(T('run-net-seconds'), String(p.netSeconds))
    const clientsField = await page.locator(T('run-clients')).count()
    await page.click(T('run-start'))
    await page.waitForSelector(T('join-command'), { timeout: p.waitMs ?? 60_000 })
    const command = await page.locator(T('join-command')).innerText()
    const countBefore = await page.locator(T('join-count')).innerText()
    await page.click(T('join-copy'))
    await page.waitForFunction(() => document.querySelector('[data-test="join-copy-status"]')?.textContent.trim())
    const copyStatus = await page.locator(T('join-copy-status')).innerText()
    const descriptionWaiting = await page.locator(T('run-description')).innerText()
    const stepsWaiting = await page.locator('[data-test^="step-"]').evaluateAll((els) => els.map((e) => `${e.dataset.test}:${e.className}`))
    await ctx.shot('run-join-waiting')
    writeFileSync(p.handoff, JSON.stringify({ command }))

    await page.waitForSelector(T('join-client-desk'), { timeout: p.joinMs ?? 120_000 })
    const joinedClients = await texts(page, `${T('join-clients')} li`)
    const countAfter = await page.locator(T('join-count')).innerText()
    const commandAfterJoin = await page.locator(T('join-command')).count()
    await ctx.shot('run-join-joined')
    const percents = []
    const stepStates = new Set()
    const deadline = Date.now() + (p.runTimeoutMs ?? 150_000)
    while (!/#\/verdict\/\d+/.test(page.url())) {
      if (Date.now() > deadline) throw new Error(`no verdict after ${p.runTimeoutMs ?? 150_000} ms; percents seen ${percents}`)
      if (await page.locator(T('run-failure')).count()) {
        throw new Error(`the run failed: ${(await texts(page, T('error'))).join(' | ')}`)
      }
      const percent = await page.locator(T('run-percent')).innerText().catch(() => null)
      if (percent !== null && percents.at(-1) !== Number(percent)) percents.push(Number(percent))
      for (const s of await page.locator('[data-test^="step-"]').evaluateAll((els) => els.map((e) => `${e.dataset.test}:${e.className}`))) {
        stepStates.add(s)
      }
      await page.waitForTimeout(250)
    }
    await page.waitForSelector(T('verdict-summary'))
    await ctx.shot('run-join-verdict')
    return {
      url: page.url(),
      clientsField,
      command, countBefore, copyStatus, descriptionWaiting, stepsWaiting,
      joinedClients, countAfter, commandAfterJoin,
      percents, stepStates: [...stepStates],
      summary: await page.locator(T('verdict-summary')).innerText(),
      rows: await texts(page, '[data-test^="verdict-row-"]'),
      errors: await texts(page, T('error')),
    }
  },

  /** A run that fails (the caller broke the lab first): the error is shown, no numbers. */
  /**
   * A fix from the verdict (params.runId, params.rule): "Fix…" beside its advice, the confirmation, the apply
   * job with the re-measure's join command (written to params.handoff for the test to run on the desktop), the
   * outcome, Undo when it was kept (asked first), then History comparing the pair, in both themes.
   */
  async 'fix-apply'(page, ctx) {
    const p = ctx.config.params
    const rule = p.rule ?? 'smb-encryption'
    const rowTexts = (sel) => page.locator(sel).evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.innerText.trim())))
    await page.emulateMedia({ colorScheme: 'light' })
    await loggedIn(page, ctx)
    await page.goto(`${ctx.config.url}#/verdict/${p.runId}`)
    await page.waitForSelector(T(`fix-open-${rule}`))
    const facts = {
      adviceRules: await page.locator(`${T('advice')} > li`).evaluateAll((els) => els.map((e) => e.dataset.test)),
      fixButtons: await page.locator('[data-test^="fix-open-"]').evaluateAll((els) => els.map((e) => e.dataset.test)),
      summary: await page.locator(`${T(`fix-${rule}`)} ${T('fix-summary')}`).innerText(),
    }
    await page.locator(T(`advice-${rule}`)).scrollIntoViewIfNeeded()
    await ctx.shot('fix-verdict')

    await page.click(T(`fix-open-${rule}`))
    await page.waitForSelector(T('fix-confirm'))
    facts.dialog = {
      role: await page.locator(T('fix-confirm')).getAttribute('role'),
      text: await page.locator(T('fix-confirm-text')).innerText(),
      setting: await page.locator(T('fix-confirm-setting')).innerText(),
      fromTo: await page.locator(T('fix-confirm-from-to')).innerText(),
      call: await page.locator(T('fix-confirm-call')).innerText(),
      predictions: await rowTexts(`${T('fix-confirm-predictions')} tbody tr`),
    }
    facts.callsAtDialog = [...ctx.calls]
    await ctx.shot('fix-confirm')
    await page.click(T('fix-confirm-yes'))

    await page.waitForSelector(T('join-command'), { timeout: p.waitMs ?? 120_000 })
    const command = await page.locator(T('join-command')).innerText()
    facts.command = command
    facts.countBefore = await page.locator(T('join-count')).innerText()
    facts.descriptionWaiting = await page.locator(T('fix-description')).innerText()
    await ctx.shot('fix-remeasure-waiting')
    writeFileSync(p.handoff, JSON.stringify({ command }))

    const percents = []
    const joined = new Set()
    const deadline = Date.now() + (p.fixTimeoutMs ?? 600_000)
    let shotJoined = false
    while (!(await page.locator(T('fix-outcome')).count())) {
      if (Date.now() > deadline) throw new Error(`no outcome after ${p.fixTimeoutMs ?? 600_000} ms; percents seen ${percents}`)
      if (await page.locator(T('fix-failure')).count()) {
        throw new Error(`the fix failed: ${await page.locator(T('fix-failure')).innerText()} | ${(await texts(page, T('error'))).join(' | ')}`)
      }
      const percent = await page.locator(T('fix-percent')).innerText().catch(() => null)
      if (percent !== null && percents.at(-1) !== Number(percent)) percents.push(Number(percent))
      for (const c of await texts(page, `${T('join-clients')} li`).catch(() => [])) joined.add(c)
      if (!shotJoined && (await page.locator(T('join-client-desk')).count())) {
        facts.descriptionJoined = await page.locator(T('fix-description')).innerText()
        await ctx.shot('fix-remeasure-joined')
        shotJoined = true
      }
      await page.waitForTimeout(250)
    }
    facts.percents = percents
    facts.joinedClients = [...joined]
    const outcome = `${T('fix-progress')} ~ ${T('fix-outcome')}`
    await page.locator(outcome).first().scrollIntoViewIfNeeded()
    facts.outcome = {
      state: await page.locator(`${outcome} ${T('fix-outcome-state')}`).first().innerText(),
      change: await page.locator(`${outcome} ${T('fix-outcome-change')}`).first().innerText(),
      gains: await rowTexts(`${outcome} [data-test^="fix-gain-"]`),
      why: await page.locator(`${outcome} ${T('fix-outcome-why')}`).first().innerText(),
      predicted: await texts(page, `${outcome} ${T('fix-outcome-predicted')}`),
      compare: await page.locator(`${outcome} ${T('fix-outcome-compare')}`).first().getAttribute('href'),
    }
    facts.note = await page.locator(T('verdict-fix-note')).innerText().catch(() => '')
    facts.undoOffered = await page.locator(T('fix-undo')).count()
    facts.fixButtonsAfter = await page.locator('[data-test^="fix-open-"]').evaluateAll((els) => els.map((e) => e.dataset.test))
    facts.fixDone = await page.locator(`${T(`fix-${rule}`)} ${T('fix-done')}`).innerText()
    await ctx.shot('fix-outcome')
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark')
    await ctx.shot('fix-outcome-dark')
    await page.emulateMedia({ colorScheme: 'light' })

    if (facts.undoOffered) {
      await page.click(T('fix-undo'))
      await page.waitForSelector(T('fix-undo-confirm'))
      facts.undoCallsAsked = ctx.calls.filter((c) => c === 'tengig.fix.undo').length
      await ctx.shot('fix-undo-confirm')
      await page.click(T('fix-undo-yes'))
      await page.waitForSelector(T('fix-undone'))
      facts.undone = await texts(page, `${T('fix-undone')} li`)
      facts.fixDoneAfterUndo = await page.locator(`${T(`fix-${rule}`)} ${T('fix-done')}`).innerText()
      await ctx.shot('fix-undone')
    }

    await page.click(`${outcome} ${T('fix-outcome-compare')}`)
    await page.waitForSelector(T('comparison-fix'))
    facts.comparison = {
      url: page.url(),
      heading: await page.locator(`${T('comparison')} h3`).first().innerText(),
      intro: await page.locator(`${T('comparison-fix')} > p`).first().innerText(),
      gains: await rowTexts(`${T('comparison-fix')} [data-test^="fix-gain-"]`),
      historyNotes: await texts(page, T('history-fix')),
    }
    await page.locator(T('comparison')).scrollIntoViewIfNeeded()
    await ctx.shot('fix-compare')
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark')
    await ctx.shot('fix-compare-dark')
    facts.errors = await texts(page, T('error'))
    return facts
  },

  async 'failed-run'(page, ctx) {
    await loggedIn(page, ctx)
    await page.click(T('tab-run'))
    await page.waitForSelector(`${T('run-target')} option`, { state: 'attached' })
    await page.waitForSelector(`${T('run-system')} option`, { state: 'attached' })
    const p = ctx.config.params ?? {}
    await page.selectOption(T('run-system'), p.system ?? 'lab')
    await page.selectOption(T('run-kind'), p.kind ?? 'smb')
    await page.fill(T('run-repeats'), '1')
    await page.click(T('run-start'))
    await page.waitForSelector(T('run-failure'), { timeout: p.runTimeoutMs ?? 90_000 })
    await page.waitForSelector(T('error'))
    await ctx.shot('run-failed')
    const facts = {
      url: page.url(),
      failure: await page.locator(T('run-failure')).innerText(),
      errors: await texts(page, T('error')),
      state: await page.locator(T('run-state')).innerText(),
      progressText: await page.locator(T('run-progress')).innerText(),
      samples: await page.locator(T('run-samples')).innerText(),
      stepStates: await page.locator('[data-test^="step-"]').evaluateAll((els) => els.map((e) => `${e.dataset.test}:${e.className}`)),
    }
    await page.click(T('tab-history'))
    await page.waitForSelector(T('history-table'))
    await ctx.shot('history')
    facts.historyRows = await texts(page, `${T('history-table')} tbody tr`)
    return facts
  },

  /** Plan the lab's mesh and read the diagram, the apply/verify controls and the apply confirmation (cancelled). */
  async 'mesh-plan'(page, ctx) {
    await loggedIn(page, ctx)
    await page.click(T('tab-mesh'))
    await page.click(T('mesh-preset-lab'))
    await page.click(T('mesh-plan'))
    await page.waitForSelector(T('mesh-diagram'))
    await ctx.shot('mesh')
    return {
      nodes: await page.locator('[data-test^="mesh-node-"]').evaluateAll((els) => els.map((e) => e.dataset.test)),
      edges: await page.locator('[data-test^="mesh-edge-"]').evaluateAll((els) => els.map((e) => e.textContent.replace(/\s+/g, ' ').trim())),
      counts: await page.locator(T('mesh-counts')).innerText(),
      cables: await texts(page, `${T('mesh-cables')} tbody tr`),
      errors: await texts(page, T('error')),
      ...(await meshControls(page, ctx)),
    }
  },

  /**
   * Apply the lab's mesh with "keep it only if I confirm": read the countdown twice (it must move), then
   * Confirm (params.confirm) or let the time run out; report what the page says after.
   */
  async 'mesh-apply-checkin'(page, ctx) {
    const p = ctx.config.params ?? {}
    await loggedIn(page, ctx)
    await page.click(T('tab-mesh'))
    await page.click(T('mesh-preset-lab'))
    await page.click(T('mesh-plan'))
    await page.waitForSelector(T('mesh-diagram'))
    await page.fill(T('mesh-checkin-timeout'), String(p.checkinTimeout ?? 30))
    await page.click(T('mesh-apply'))
    await page.click(T('mesh-apply-confirm-yes'))
    await page.waitForSelector(T('mesh-checkin'), { timeout: 60_000 })
    const first = { text: await page.locator(T('mesh-checkin-text')).innerText(), left: await page.locator(T('mesh-checkin-seconds')).innerText() }
    await ctx.shot('mesh-checkin-countdown')
    await page.waitForTimeout(2200)
    const second = { left: await page.locator(T('mesh-checkin-seconds')).innerText() }
    const facts = { first, second, errors: [] }
    if (p.confirm) {
      await page.click(T('mesh-checkin-confirm'))
      await page.waitForSelector(T('mesh-applied'), { timeout: 30_000 })
      await ctx.shot('mesh-applied')
      facts.applied = await texts(page, '[data-test^="mesh-applied-"]')
      facts.barAfter = await page.locator(T('mesh-checkin')).count()
      if (p.verifySeconds) { // then verify the applied mesh for real: the diagram gets measured numbers
        await page.fill('[data-test="mesh-target"] input[type="number"]', String(p.verifySeconds))
        await page.click(T('mesh-verify'))
        await page.waitForSelector(T('mesh-verify-summary'), { timeout: 120_000 })
        await page.locator(T('mesh-diagram')).scrollIntoViewIfNeeded()
        await ctx.shot('mesh-verified')
        facts.verifySummary = await page.locator(T('mesh-verify-summary')).innerText()
        facts.verifyProblems = await texts(page, `${T('mesh-verify-problems')} li`)
        facts.edges = await page.locator('[data-test^="mesh-edge-"]').evaluateAll((els) => els.map((e) => `${e.dataset.state}|${e.dataset.test.replace('mesh-edge-', '')}|${e.textContent.replace(/\s+/g, ' ').trim()}`))
      }
    } else {
      await page.waitForSelector(T('mesh-apply-failure'), { timeout: ((p.checkinTimeout ?? 30) + 30) * 1000 })
      await ctx.shot('mesh-not-confirmed')
      facts.failure = await page.locator(T('mesh-apply-failure')).innerText()
      facts.applied = await texts(page, '[data-test^="mesh-applied-"]')
    }
    facts.errors = await texts(page, T('error'))
    return facts
  },

  /** LAGG on the lab: ports, plan, what apply would run, then measure (progress moving, per-member shares). */
  async 'lagg-measure'(page, ctx) {
    const p = ctx.config.params ?? {}
    await laggPlanned(page, ctx)
    const facts = {
      nics: await texts(page, `${T('lagg-nics')} tbody tr`),
      headline: await page.locator(T('lagg-headline')).innerText(),
      members: await texts(page, `${T('lagg-members')} tbody tr`),
      throughput: await texts(page, `${T('lagg-throughput')} tbody tr`),
    }
    await ctx.shot('lagg-plan')
    await page.click(T('lagg-validate'))
    await page.waitForSelector(T('lagg-apply-steps'))
    facts.applySteps = await page.locator(T('lagg-apply-steps')).innerText()
    facts.undoSteps = await page.locator(T('lagg-undo-steps')).innerText()
    await page.fill(T('lagg-measure-seconds'), String(p.seconds ?? 2))
    await page.fill(T('lagg-measure-omit'), String(p.omit ?? 1))
    await page.click(T('lagg-measure'))
    const percents = []
    const descriptions = []
    const live = new Set()
    let midShot = false
    const deadline = Date.now() + (p.measureTimeoutMs ?? 120_000)
    while (!(await page.locator(T('lagg-measure-headline')).count())) {
      if (Date.now() > deadline) throw new Error(`no measurement after ${p.measureTimeoutMs ?? 120_000} ms; percents seen ${percents}`)
      const state = await page.locator(T('lagg-measure-state')).innerText().catch(() => '')
      if (state.startsWith('failed') || state.startsWith('stopped')) {
        throw new Error(`the measurement ended ${state}: ${(await texts(page, T('error'))).join(' | ')} ${(await texts(page, T('lagg-measure-errors'))).join(' | ')}`)
      }
      const percent = await page.locator(T('lagg-measure-percent')).innerText({ timeout: 1000 }).catch(() => null)
      if (percent !== null && percents.at(-1) !== Number(percent)) percents.push(Number(percent))
      const d = await page.locator(T('lagg-measure-description')).innerText({ timeout: 1000 }).catch(() => null)
      if (d && descriptions.at(-1) !== d) descriptions.push(d)
      for (const item of await texts(page, `${T('lagg-measure-live')} li`)) live.add(item)
      if (!midShot && live.size >= 1) {
        await ctx.shot('lagg-measure-progress')
        midShot = true
      }
      await page.waitForTimeout(200)
    }
    await page.locator(`${T('lagg')} .test`).last().scrollIntoViewIfNeeded()
    await ctx.shot('lagg-measure')
    return {
      ...facts,
      percents,
      descriptions,
      live: [...live],
      state: await page.locator(T('lagg-measure-state')).innerText(),
      measureHeadline: await page.locator(T('lagg-measure-headline')).innerText(),
      tests: await laggTests(page),
      measureErrors: await texts(page, T('lagg-measure-errors')),
      errors: await texts(page, T('error')),
    }
  },

  /** LAGG on the lab, measured with an option the server refuses: the error in words, no numbers. */
  async 'lagg-measure-refused'(page, ctx) {
    const p = ctx.config.params ?? {}
    await laggPlanned(page, ctx)
    await page.fill(T('lagg-measure-client'), p.client ?? 'printer')
    await page.fill(T('lagg-measure-seconds'), '2')
    await page.click(T('lagg-measure'))
    await page.waitForSelector(`${T('lagg-measure-errors')}, ${T('error')}`, { timeout: p.measureTimeoutMs ?? 60_000 })
    await page.waitForFunction(() => !document.querySelector('[data-test="lagg-measure-stop"]'))
    await ctx.shot('lagg-measure-refused')
    return {
      measureErrors: await texts(page, `${T('lagg-measure-errors')} li`),
      errors: await texts(page, T('error')),
      state: await page.locator(T('lagg-measure-state')).innerText(),
      progressText: await page.locator(T('lagg-measure-progress')).innerText(),
      tests: await page.locator(`${T('lagg')} .test`).count(),
      headline: await page.locator(T('lagg-measure-headline')).count(),
    }
  },

  /**
   * LAGG on the configured TrueNAS: its ports, a SCALE plan with an address, Apply with a probe and "keep
   * it only if I confirm": the countdown shows (read twice), then Confirm; report what the page says.
   */
  async 'lagg-apply-truenas'(page, ctx) {
    const p = ctx.config.params ?? {}
    await loggedIn(page, ctx)
    await page.click(T('tab-lagg'))
    await page.selectOption(T('lagg-system'), 'truenas')
    await page.click(T('lagg-load-nics'))
    await page.waitForSelector(T('lagg-nics'))
    await page.selectOption(T('lagg-platform'), 'truenas-scale')
    await page.fill(T('lagg-address'), p.address ?? '10.20.0.5/24')
    await page.click(T('lagg-plan'))
    await page.waitForSelector(T('lagg-headline'))
    await page.fill(T('lagg-apply-probe'), p.probe ?? '10.20.0.1')
    await page.fill(T('lagg-apply-timeout'), String(p.checkinTimeout ?? 30))
    await page.click(T('lagg-apply'))
    await page.waitForSelector(T('lagg-apply-confirm'))
    const question = await page.locator(T('lagg-apply-confirm')).innerText()
    await page.click(T('lagg-apply-confirm-yes'))
    await page.waitForSelector(T('lagg-checkin'), { timeout: 60_000 })
    const first = await page.locator(T('lagg-checkin-seconds')).innerText()
    await ctx.shot('lagg-checkin-countdown')
    await page.waitForTimeout(2200)
    const second = await page.locator(T('lagg-checkin-seconds')).innerText()
    await page.click(T('lagg-checkin-confirm'))
    await page.waitForSelector(T('lagg-applied'), { timeout: 30_000 })
    await ctx.shot('lagg-applied')
    return {
      nics: await page.locator('[data-test^="lagg-nic-"]').evaluateAll((els) => els.map((e) => e.dataset.test)),
      headline: await page.locator(T('lagg-headline')).innerText(),
      question, first, second,
      applied: await page.locator(T('lagg-applied')).innerText(),
      checkinAfter: await page.locator(T('lagg-checkin')).count(),
      errors: await texts(page, T('error')),
    }
  },

  /**
   * A stored run several desktops joined (params.runId): its History row, then its Verdict view, the
   * aggregate verdict first and each client's own under its name (opened to read it).
   */
  async 'history-aggregate'(page, ctx) {
    const id = ctx.config.params.runId
    await loggedIn(page, ctx)
    await page.click(T('tab-history'))
    await page.waitForSelector(T(`history-run-${id}`))
    const row = await page.locator(T(`history-run-${id}`)).innerText()
    await ctx.shot('history-aggregate-row')
    await page.click(`${T(`history-run-${id}`)} a[href="#/verdict/${id}"]`)
    await page.waitForSelector(T('aggregate-verdict'))
    for (const d of await page.locator(T('client-verdict')).all()) await d.evaluate((el) => { el.open = true })
    await ctx.shot('history-aggregate-verdict')
    return {
      row,
      aggregateHeading: await page.locator(`${T('aggregate-verdict')} > h3`).first().innerText(),
      aggregateClients: await page.locator(T('aggregate-clients')).innerText(),
      aggregateSummary: await page.locator(`${T('aggregate-verdict')} ${T('aggregate-summary')}`).innerText(),
      clients: await page.locator(T('client-verdict')).evaluateAll((els) => els.map((e) => e.dataset.client)),
      clientSummaries: await texts(page, `${T('client-verdict')} ${T('client-verdict-summary')}`),
      errors: await texts(page, T('error')),
    }
  },

  /**
   * Each view in the light and the dark theme (the browser's prefers-color-scheme, switched while the
   * page is open): the verdict of params.runId, History, the comparison of params.compare [a, b], the
   * mesh plan and the LAGG plan of the lab, a screenshot of each (theme-<theme>-<view>) and the colours
   * they are drawn in. Then the toggle: flipped against the browser's choice, kept after a reload.
   */
  async 'themes'(page, ctx) {
    const p = ctx.config.params
    await page.emulateMedia({ colorScheme: 'light' })
    await loggedIn(page, ctx)
    const facts = {}
    for (const theme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: theme })
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme)
      const seen = (facts[theme] = {})
      await page.goto(`${ctx.config.url}#/verdict/${p.runId}`)
      await page.waitForSelector(T('verdict-summary'))
      await ctx.shot(`theme-${theme}-verdict`)
      seen.page = await colours(page, 'html', 'html')
      seen.verdict = await colours(page, T('verdict-summary'), T('verdict'))
      seen.muted = await colours(page, T('verdict-run'), T('verdict'))
      seen.barValue = await colours(page, `${T('ceiling-read-link')} .value`, T('verdict'))
      seen.bars = await page.locator('[data-test^="ceiling-"] .bar').evaluateAll((els) => Object.fromEntries(
        els.map((e) => [e.closest('[data-test^="ceiling-"]').dataset.test, e.getBoundingClientRect().width])))
      seen.barFill = await colours(page, `${T('ceiling-read-pool')} .bar`, `${T('ceiling-read-pool')} .track`, 'backgroundColor')

      await page.click(T('tab-history'))
      await page.waitForSelector(T('history-table'))
      await page.waitForSelector(`${T('history')} .uplot canvas`)
      await ctx.shot(`theme-${theme}-history`)
      seen.historyRows = await page.locator(`${T('history-table')} tbody tr`).evaluateAll((rows) => rows.map((r) => ({
        text: r.innerText,
        height: r.getBoundingClientRect().height,
        lineHeight: parseFloat(getComputedStyle(r.querySelector('td')).lineHeight),
      })))
      seen.historyText = await colours(page, `${T('history-table')} tbody td`, T('history'))
      seen.historyOverflow = await page.locator(`${T('history')} .scroll`).evaluate((e) => e.scrollWidth - e.clientWidth)
      seen.chartLegend = await colours(page, `${T('history')} .u-legend`, T('history'))

      for (const id of p.compare) await page.check(T(`history-pick-${id}`))
      await page.click(T('history-compare'))
      await page.waitForSelector(T('comparison-moved'))
      await page.locator(T('comparison')).scrollIntoViewIfNeeded()
      await ctx.shot(`theme-${theme}-compare`)
      seen.moved = await texts(page, `${T('comparison-moved')} li`)
      seen.ceilingRows = await texts(page, `${T('comparison-ceilings')} tbody tr`)

      await page.click(T('tab-mesh'))
      await page.click(T('mesh-preset-lab'))
      await page.click(T('mesh-plan'))
      await page.waitForSelector(T('mesh-diagram'))
      await ctx.shot(`theme-${theme}-mesh`)
      seen.meshHost = await colours(page, `${T('mesh-diagram')} .host`, T('mesh-diagram'), 'fill')
      seen.meshLabel = await colours(page, `${T('mesh-diagram')} .edge-label`, T('mesh-diagram'), 'fill')

      await laggPlan(page, { host: 'nas', clients: 4 })
      await ctx.shot(`theme-${theme}-lagg`)
      seen.laggHeadline = await colours(page, T('lagg-headline'), T('lagg'))
      seen.errors = await texts(page, T('error'))
    }
    // the toggle: the browser prefers dark, the user picks light; a reload keeps it
    await page.click(T('theme-toggle'))
    facts.toggled = await page.evaluate(() => [document.documentElement.dataset.theme, localStorage.getItem('tengig.theme')])
    await page.reload()
    await page.waitForSelector(T('theme-toggle'))
    facts.afterReload = await page.evaluate(() => document.documentElement.dataset.theme)
    return facts
  },

  /**
   * The verdict of params.runId as Markdown: "Download .md" (the file the browser saves, read back) and
   * "Copy as Markdown" (the clipboard, read back with the page's permission).
   */
  async 'share-markdown'(page, ctx) {
    const p = ctx.config.params
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ctx.config.url).origin })
    await loggedIn(page, ctx)
    await page.goto(`${ctx.config.url}#/verdict/${p.runId}`)
    await page.waitForSelector(`${T('verdict-summary')}, ${T('aggregate-summary')}`)
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(T('share-download-md'))])
    const file = join(ctx.config.outDir, `share-run-${p.runId}.md`)
    await download.saveAs(file)
    const facts = { filename: download.suggestedFilename(), downloaded: readFileSync(file, 'utf8') }
    await page.click(T('share-copy-md'))
    await page.waitForFunction(() => document.querySelector('[data-test="share-status"]')?.textContent.startsWith('copied'))
    facts.copyStatus = await page.locator(T('share-status')).innerText()
    facts.clipboard = await page.evaluate(() => navigator.clipboard.readText())
    await ctx.shot('share-markdown')
    facts.errors = await texts(page, T('error'))
    return facts
  },

  /** Every view once: the caller checks that no request left this machine. */
  async 'tour'(page, ctx) {
    await loggedIn(page, ctx)
    const seen = {}
    // What shows once each view has its data (not just its frame).
    const ready = {
      verdict: `${T('verdict-empty')}, ${T('verdict-summary')}`,
      run: `${T('run-target')} option`,
      history: `${T('history-table')}, ${T('history')} p.muted`,
      mesh: T('mesh-form'),
      lagg: T('lagg-form'),
      targets: T('target-hdd-15k-best'),
    }
    for (const view of ['verdict', 'run', 'history', 'mesh', 'lagg', 'targets']) {
      await page.click(T(`tab-${view}`))
      await page.waitForSelector(ready[view], { state: 'attached' })
      await page.waitForLoadState('networkidle')
      seen[view] = (await page.locator(T(view)).innerText()).slice(0, 200)
    }
    await ctx.shot(ctx.config.params?.shot ?? 'targets')
    return { seen, errors: await texts(page, T('error')) }
  },
}

/** The LAGG view on the lab NAS: read its ports, plan (linux, LACP switch, N clients, member config cleared). */
async function laggPlanned(page, ctx) {
  await loggedIn(page, ctx)
  await laggPlan(page, ctx.config.params ?? {})
}

async function laggPlan(page, p) {
  await page.click(T('tab-lagg'))
  await page.waitForSelector(T('lagg-form'))
  await page.selectOption(T('lagg-system'), 'lab')
  await page.fill(T('lagg-host'), p.host ?? 'nas')
  await page.waitForSelector(`${T('lagg-load-nics')}:not([disabled])`)
  await page.click(T('lagg-load-nics'))
  await page.waitForSelector(`${T('lagg-nics')} tbody tr`)
  await page.selectOption(T('lagg-platform'), p.platform ?? 'linux')
  await page.selectOption(T('lagg-topology'), p.topology ?? 'lacp-switch')
  await page.fill(T('lagg-clients'), String(p.clients ?? 4))
  await page.check(T('lagg-clear-config'))
  await page.click(T('lagg-plan'))
  await page.waitForSelector(T('lagg-headline'))
}

/** What one finished measurement shows: per test its status, numbers, reason and member share bars. */
async function laggTests(page) {
  return page.locator(`${T('lagg')} .test`).evaluateAll((blocks) => blocks.map((b) => ({
    key: b.dataset.test,
    title: b.querySelector('h4')?.childNodes[0]?.textContent.trim(),
    status: b.querySelector('[data-test="lagg-test-status"]')?.textContent.trim(),
    measured: b.querySelector('[data-test="lagg-test-measured"]')?.textContent.trim(),
    row: b.querySelector('tbody tr')?.innerText,
    reason: b.querySelector('[data-test="lagg-test-reason"]')?.textContent.trim(),
    shares: [...b.querySelectorAll('[data-test^="lagg-share-"]')].map((li) => ({
      name: li.querySelector('code')?.textContent, idle: li.dataset.idle === 'true', text: li.innerText.replace(/\s+/g, ' ').trim(),
      width: li.querySelector('.bar > span')?.style.width,
    })),
  })))
}

/** The mesh view's apply/verify controls; opens the apply confirmation and cancels it (nothing is applied). */
async function meshControls(page, ctx) {
  // the controls, or the note that the server lacks them, once the view has the server's method list
  await page.waitForSelector(`${T('mesh-apply')}, ${T('mesh-apply-missing')}`)
  const facts = {
    applyButton: await page.locator(T('mesh-apply')).count(),
    verifyButton: await page.locator(T('mesh-verify')).count(),
    targets: await page.locator('[data-test^="mesh-target-"]').evaluateAll((els) => els.filter((e) => e.checked).map((e) => e.value)),
    missingNote: await texts(page, T('mesh-apply-missing')),
    confirm: null,
    confirmAfterCancel: null,
  }
  if (facts.applyButton) {
    await page.click(T('mesh-apply'))
    await page.waitForSelector(T('mesh-apply-confirm'))
    await ctx.shot('mesh-apply-confirm')
    facts.confirm = await page.locator(T('mesh-apply-confirm')).innerText()
    await page.click(T('mesh-apply-confirm-no'))
    facts.confirmAfterCancel = await page.locator(T('mesh-apply-confirm')).count()
  }
  return facts
}
