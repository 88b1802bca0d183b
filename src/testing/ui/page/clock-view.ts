/**
 * The fake's clock: where it stands (in UTC) and buttons that move it. A running clock is drawn
 * ticking between polls from the offset the fake last reported, so no request is spent per second.
 * @module
 */
import type { LiveState } from '../../control/live-state.js';
import { act } from './act.js';
import { actions } from './api.js';
import { field, h, setText } from './dom.js';
import { wallTime } from './format.js';

const STEPS = [
  { label: '+5 min', duration: 'PT5M', spoken: '5 minutes' },
  { label: '+1 h', duration: 'PT1H', spoken: '1 hour' },
  { label: '+1 day', duration: 'P1D', spoken: '1 day' },
];

/** The fake's current time, extrapolated from the last answer while its clock runs. */
let reported = { now: Date.now(), at: Date.now(), frozen: false };
export const fakeNow = (): number =>
  reported.frozen ? reported.now : reported.now + (Date.now() - reported.at);

export function createClockView(container: HTMLElement): (overview: LiveState) => void {
  const time = h('time', { className: 'clock-time' });
  const mode = h('span', { className: 'clock-mode' });
  const alert = h('p', { className: 'error', role: 'alert' });
  const buttons = STEPS.map(({ label, duration, spoken }) => {
    const button = h('button', { type: 'button' }, label);
    button.addEventListener(
      'click',
      () => void act(button, alert, () => actions.advanceClock(duration), `Clock advanced by ${spoken}.`),
    );
    return button;
  });
  const durationInput = h('input', {
    type: 'text',
    name: 'duration',
    required: true,
    placeholder: 'PT2H30M',
    autocomplete: 'off',
    spellcheck: 'false',
    size: 10,
  });
  const form = h(
    'form',
    { className: 'inline-form', 'aria-label': 'Advance the clock by any amount' },
    field('Duration', durationInput, 'ISO 8601, for example PT2H30M or P2D'),
    h('button', { type: 'submit' }, 'Advance'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const duration = durationInput.value.trim();
    void act(form, alert, () => actions.advanceClock(duration), `Clock advanced by ${duration}.`);
  });
  container.append(
    h('h2', { id: 'clock-heading' }, 'Clock'),
    h('p', { className: 'clock-now' }, time, ' ', mode),
    h('div', { className: 'button-row', role: 'group', 'aria-label': 'Advance the clock' }, ...buttons),
    form,
    alert,
  );
  const draw = () => {
    const now = fakeNow();
    setText(time, `${wallTime(now, 'UTC')} UTC`);
    time.setAttribute('datetime', new Date(now).toISOString());
  };
  setInterval(draw, 1000);
  return (overview) => {
    reported = { now: Date.parse(overview.clock.now), at: Date.now(), frozen: overview.clock.frozen };
    setText(mode, overview.clock.frozen ? '(frozen: moves only when advanced)' : '(running)');
    draw();
  };
}
