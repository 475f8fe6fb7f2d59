import { beforeEach, describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import App from './App.vue'
import { CHOICE_STORAGE } from './api/login'

describe('App', () => {
  beforeEach(() => localStorage.clear())

  it('shows the title and asks to log in before anything else', () => {
    const wrapper = mount(App)
    expect(wrapper.get('[data-test="app-title"]').text()).toBe('tengig')
    expect(wrapper.get('[data-test="app-description"]').text()).toBe('Does your NAS over SMB beat a local disk?')
    expect(wrapper.find('[data-test="login"]').exists()).toBe(true)
    expect(wrapper.find('[data-test="tabs"]').exists()).toBe(false)
  })

  it('offers the other theme before and after logging in, and flips <html> to it', async () => {
    const wrapper = mount(App)
    document.documentElement.dataset.theme = 'light'
    const toggle = wrapper.get('[data-test="theme-toggle"]')
    const before = toggle.text()
    await toggle.trigger('click')
    expect(document.documentElement.dataset.theme).toBe(before === 'Dark theme' ? 'dark' : 'light')
    expect(wrapper.get('[data-test="theme-toggle"]').text()).not.toBe(before)
  })

  it('offers a username with a password (first, as TrueNAS does) or with an API key', async () => {
    const wrapper = mount(App)
    expect(wrapper.get<HTMLInputElement>('[data-test="login-mechanism-password"]').element.checked).toBe(true)
    expect(wrapper.find('[data-test="login-password"]').exists()).toBe(true)
    expect(wrapper.find('[data-test="login-key"]').exists()).toBe(false)
    expect(wrapper.get('[data-test="login-submit"]').attributes('disabled')).toBeDefined()
    await wrapper.get('[data-test="login-username"]').setValue('truenas_admin')
    await wrapper.get('[data-test="login-password"]').setValue('pw')
    expect(wrapper.get('[data-test="login-submit"]').attributes('disabled')).toBeUndefined()

    await wrapper.get('[data-test="login-mechanism-api-key"]').setValue(true)
    expect(wrapper.find('[data-test="login-password"]').exists()).toBe(false)
    // the password typed for the other mechanism is not carried into the key field
    expect(wrapper.get<HTMLInputElement>('[data-test="login-key"]').element.value).toBe('')
    expect(wrapper.get('[data-test="login-submit"]').attributes('disabled')).toBeDefined()
  })

  it('opens with the mechanism and username remembered from the last login', () => {
    localStorage.setItem(CHOICE_STORAGE, JSON.stringify({ mechanism: 'API_KEY_PLAIN', username: 'root' }))
    const wrapper = mount(App)
    expect(wrapper.get<HTMLInputElement>('[data-test="login-mechanism-api-key"]').element.checked).toBe(true)
    expect(wrapper.get<HTMLInputElement>('[data-test="login-username"]').element.value).toBe('root')
    expect(wrapper.find('[data-test="login-key"]').exists()).toBe(true)
  })
})
