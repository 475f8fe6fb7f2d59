import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { THEME_STORAGE, shownTheme, startTheme, toggleTheme, useTheme } from './useTheme'

/** jsdom has no matchMedia: a browser that prefers `dark`, whose preference the test can change. */
function browserPrefers(dark: boolean) {
  const listeners: (() => void)[] = []
  const query = { matches: dark, addEventListener: (_: string, f: () => void) => listeners.push(f) }
  vi.stubGlobal('matchMedia', () => query)
  return (next: boolean) => {
    query.matches = next
    listeners.forEach((f) => f())
  }
}

describe('shownTheme', () => {
  it('follows the browser unless a choice is remembered', () => {
    expect(shownTheme(null, true)).toBe('dark')
    expect(shownTheme(null, false)).toBe('light')
    expect(shownTheme('light', true)).toBe('light')
    expect(shownTheme('dark', false)).toBe('dark')
    expect(shownTheme('purple', true)).toBe('dark') // not a theme: the browser's
  })
})

describe('the theme toggle', () => {
  beforeEach(() => localStorage.clear())
  afterEach(() => vi.unstubAllGlobals())

  it('starts as the browser prefers, on <html>', () => {
    browserPrefers(true)
    startTheme()
    expect(document.documentElement.dataset.theme).toBe('dark')
    expect(useTheme().value).toBe('dark')
  })

  it('flips the theme and remembers the choice; flipping back to the browser\'s forgets it', () => {
    browserPrefers(true)
    startTheme()
    toggleTheme()
    expect(document.documentElement.dataset.theme).toBe('light')
    expect(localStorage.getItem(THEME_STORAGE)).toBe('light')
    startTheme() // a reload
    expect(document.documentElement.dataset.theme).toBe('light')
    toggleTheme()
    expect(document.documentElement.dataset.theme).toBe('dark')
    expect(localStorage.getItem(THEME_STORAGE)).toBeNull()
  })

  it('works without matchMedia (light, and the toggle still flips)', () => {
    startTheme()
    expect(document.documentElement.dataset.theme).toBe('light')
    toggleTheme()
    expect(document.documentElement.dataset.theme).toBe('dark')
    expect(localStorage.getItem(THEME_STORAGE)).toBe('dark')
  })
})
