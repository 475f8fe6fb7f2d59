/**
 * Every error the panel shows goes through here: in words (describeError), once (the same words are
 * not listed twice while shown), until dismissed. Nothing is swallowed: a caller that catches an
 * error either reports it here or rethrows it.
 */
import { reactive, readonly } from 'vue'
import { describeError } from '../api/errors'

export interface ShownError {
  id: number
  text: string
  context: string
}

const state = reactive({ errors: [] as ShownError[] })
let nextId = 1

/** Adds the error unless the same text is already shown; returns the text. */
export function reportError(err: unknown, context = ''): string {
  const text = describeError(err)
  if (!state.errors.some((e) => e.text === text && e.context === context)) {
    state.errors.push({ id: nextId++, text, context })
  }
  return text
}

export function dismissError(id: number): void {
  const i = state.errors.findIndex((e) => e.id === id)
  if (i >= 0) state.errors.splice(i, 1)
}

export function clearErrors(context?: string): void {
  for (let i = state.errors.length - 1; i >= 0; i--) {
    if (context === undefined || state.errors[i].context === context) state.errors.splice(i, 1)
  }
}

export function useErrors() {
  return { errors: readonly(state).errors, reportError, dismissError, clearErrors }
}
