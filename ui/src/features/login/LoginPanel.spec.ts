/**
 * @vitest-environment-options {"url": "http://nas.local/_plugins/tengig/"}
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import LoginPanel from './LoginPanel.vue'

describe('LoginPanel on TrueNAS over plain http', () => {
  beforeEach(() => localStorage.clear())

  it('does not send an API key (TrueNAS would revoke it), and says why; a password still logs in', async () => {
    expect(window.location.href).toBe('http://nas.local/_plugins/tengig/')
    const wrapper = mount(LoginPanel)
    await wrapper.get('[data-test="login-username"]').setValue('truenas_admin')
    await wrapper.get('[data-test="login-password"]').setValue('pw')
    expect(wrapper.find('[data-test="login-key-risk"]').exists()).toBe(false)
    expect(wrapper.get('[data-test="login-submit"]').attributes('disabled')).toBeUndefined()

    await wrapper.get('[data-test="login-mechanism-api-key"]').setValue(true)
    await wrapper.get('[data-test="login-key"]').setValue('1-abc')
    expect(wrapper.get('[data-test="login-key-risk"]').text()).toMatch(/TrueNAS revokes an API key sent that way/)
    expect(wrapper.get('[data-test="login-submit"]').attributes('disabled')).toBeDefined()
  })
})

describe('LoginPanel says where it connects', () => {
  it('shows the page’s own server before anything is sent, whatever a link added (issue 23)', () => {
    window.history.replaceState(null, '', `?api=${encodeURIComponent('ws://127.0.0.1:9/api/current')}`)
    expect(window.location.search).toContain('api=')
    const wrapper = mount(LoginPanel)
    expect(wrapper.get('[data-test="login-endpoint"]').text()).toBe('Connects to ws://nas.local/api/current')
    window.history.replaceState(null, '', '/_plugins/tengig/')
  })
})
