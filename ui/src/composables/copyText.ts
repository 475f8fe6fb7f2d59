/**
 * Copies text for the user. The Clipboard API exists only in a secure context (https, or localhost),
 * and a panel opened as http://nas:8610 from a desktop is not one: there the text is copied through a
 * selected, off-screen textarea (execCommand, which browsers still honour on a click). False when
 * neither worked, so the caller can ask the user to copy it by hand; never throws.
 */
export async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text)
      return true
    } catch {
      // refused (no permission, page not focused): the textarea way below may still work
    }
  }
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.style.position = 'fixed'
  area.style.left = '-9999px'
  document.body.appendChild(area)
  try {
    area.select()
    return document.execCommand('copy')
  } catch {
    return false
  } finally {
    area.remove()
  }
}
