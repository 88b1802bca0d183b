/**
 * Runs one action of the page: the trigger is disabled meanwhile, success is announced in the
 * page's status line, a refusal of the fake is shown next to the trigger (role="alert"), and the
 * view refreshes at once instead of waiting for the next poll.
 * @module
 */
import { ControlError } from './api.js';
import { setText } from './dom.js';

let refreshNow: () => void = () => undefined;

/** Called once by the page with the function that refreshes the view. */
export function setRefresh(refresh: () => void): void {
  refreshNow = refresh;
}

/** Says something in the page's polite status line. */
export function announce(message: string): void {
  const status = document.getElementById('status');
  if (status) setText(status, message);
}

/**
 * Controls are marked `aria-disabled` while busy rather than `disabled`: a disabled button loses
 * focus, and a keyboard user would be thrown back to the top of the page after every action.
 */
export async function act(
  trigger: HTMLButtonElement | HTMLFormElement,
  alertRegion: HTMLElement,
  run: () => Promise<unknown>,
  done: string,
): Promise<void> {
  if (trigger.getAttribute('aria-busy') === 'true') return;
  const controls: HTMLButtonElement[] =
    trigger instanceof HTMLFormElement ? [...trigger.querySelectorAll('button')] : [trigger];
  for (const control of controls) control.setAttribute('aria-disabled', 'true');
  trigger.setAttribute('aria-busy', 'true');
  setText(alertRegion, '');
  try {
    await run();
    announce(done);
  } catch (error) {
    setText(
      alertRegion,
      error instanceof ControlError
        ? error.message
        : `The fake could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    for (const control of controls) control.removeAttribute('aria-disabled');
    trigger.removeAttribute('aria-busy');
    refreshNow();
  }
}
