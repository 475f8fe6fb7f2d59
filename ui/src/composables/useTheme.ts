/**
 * Light or dark. With no choice made, the panel follows the browser's `prefers-color-scheme` (and its
 * changes); the toggle flips the shown theme and is remembered (localStorage). Choosing what the browser
 * prefers anyway forgets the choice, so the panel follows the browser again. The theme is set as
 * `data-theme` on <html>; style.css holds both palettes, and charts drawn on a canvas read the same
 * CSS variables (cssColour).
 */
import { readonly, ref } from 'vue'

export type Theme = 'light' | 'dark'
export const THEME_STORAGE = 'tengig.theme'
const QUERY = '(prefers-color-scheme: dark)'

/** The theme to show: the remembered choice if it is one, else what the browser prefers. */
export function shownTheme(stored: string | null, browserPrefersDark: boolean): Theme {
  if (stored === 'light' || stored === 'dark') return stored
  return browserPrefersDark ? 'dark' : 'light'
}

function browserPrefersDark(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(QUERY).matches
}

function stored(): string | null {
  try {
    return localStorage.getItem(THEME_STORAGE)
  } catch {
    return null // storage refused (private mode): follow the browser
  }
}

const theme = ref<Theme>('light')

function show(next: Theme): void {
  theme.value = next
  document.documentElement.dataset.theme = next
}

let started = false

/** Shows the theme now and follows the browser's changes while no choice is remembered. Once. */
export function startTheme(): void {
  show(shownTheme(stored(), browserPrefersDark()))
  if (started || typeof window.matchMedia !== 'function') return
  started = true
  window.matchMedia(QUERY).addEventListener('change', () => show(shownTheme(stored(), browserPrefersDark())))
}

/** Flips the shown theme and remembers it (or forgets the choice when it is what the browser prefers). */
export function toggleTheme(): void {
  const next: Theme = theme.value === 'dark' ? 'light' : 'dark'
  try {
    if (next === shownTheme(null, browserPrefersDark())) localStorage.removeItem(THEME_STORAGE)
    else localStorage.setItem(THEME_STORAGE, next)
  } catch {
    // not remembered; shown all the same
  }
  show(next)
}

export function useTheme() {
  return readonly(theme)
}

/** A CSS variable's colour as the page shows it now (for a canvas, which CSS does not reach). */
export function cssColour(variable: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(variable).trim()
  return value || fallback
}
