/**
 * Restaurants and every channel's reservations, with the restaurant's and the customer's actions.
 * Each reservation is one list entry headed `#<id>` that holds its own buttons, so "Confirm" in
 * the entry of #12 confirms #12.
 * @module
 */
import type { LiveState } from '../../control/live-state.js';
import { act } from './act.js';
import { actions } from './api.js';
import { createBookingForm, number, readParty } from './booking-form.js';
import { fakeNow } from './clock-view.js';
import { field, h, setText, show, syncList, uniqueId } from './dom.js';
import { describeOpeningPeriod, formatLocalTime, toLocalInput, wallTime } from './format.js';

type Reservation = LiveState['reservations'][number];

/** The state as the spec's state table names it, from the reservation's booleans. */
function stateOf(reservation: Reservation): 'created' | 'confirmed' | 'cancelled' | 'arrived' | 'no-show' {
  if (reservation.arrived) return 'arrived';
  if (reservation.no_show) return 'no-show';
  if (reservation.cancelled) return 'cancelled';
  return reservation.confirmed ? 'confirmed' : 'created';
}

const MODES: Record<string, string> = {
  CONFIRMATION_MODE_SYNCHRONOUS: 'synchronous (confirmed when booked)',
  CONFIRMATION_MODE_ASYNCHRONOUS: 'asynchronous (the restaurant confirms)',
};

function createReservationEntry(reservation: Reservation, zone: string): HTMLLIElement {
  const { id, restaurantId } = reservation;
  const headingId = uniqueId(`reservation-${id}`);
  const alert = h('p', { className: 'error', role: 'alert' });
  const button = (label: string, className: string, run: () => Promise<unknown>, done: string) => {
    const element = h('button', { type: 'button', className }, label);
    element.addEventListener('click', () => void act(element, alert, run, done));
    return element;
  };
  const formId = uniqueId(`modify-${id}`);
  const modifyToggle = h(
    'button',
    { type: 'button', className: 'modify-toggle', 'aria-expanded': 'false', 'aria-controls': formId },
    'Modify',
  );
  const startInput = h('input', { type: 'datetime-local', name: 'start_time', required: true, step: 60 });
  const form = h(
    'form',
    { id: formId, className: 'modify-form', hidden: true, 'aria-label': `Modify #${id}` },
    h(
      'fieldset',
      {},
      h('legend', {}, 'New time and party'),
      field('Start', startInput, `Local time in ${zone}`),
      h(
        'div',
        { className: 'field-row' },
        field('Adults', number('adults', 1, 50, reservation.adults ?? 1)),
        field('Children', number('children', 0, 50, reservation.children ?? 0)),
      ),
      h(
        'div',
        { className: 'button-row' },
        h('button', { type: 'submit', value: 'restaurant' }, 'Save as restaurant'),
        h('button', { type: 'submit', value: 'customer' }, 'Save as customer'),
        h('button', { type: 'button', className: 'secondary close' }, 'Close'),
      ),
    ),
  );
  const setOpen = (open: boolean) => {
    form.hidden = !open;
    modifyToggle.setAttribute('aria-expanded', String(open));
    if (open) startInput.focus();
    else modifyToggle.focus();
  };
  modifyToggle.addEventListener('click', () => setOpen(form.hidden !== false));
  form.querySelector('.close')!.addEventListener('click', () => setOpen(false));
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') setOpen(false);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const by =
      (event.submitter as HTMLButtonElement | null)?.value === 'customer' ? 'customer' : 'restaurant';
    const changes = readParty(form);
    void act(
      form,
      alert,
      async () => {
        await actions.modify(restaurantId, id, by, changes);
        setOpen(false);
      },
      `Reservation ${id} modified by the ${by}.`,
    );
  });
  return h(
    'li',
    { className: 'reservation', 'aria-labelledby': headingId, tabindex: -1 },
    h(
      'div',
      { className: 'reservation-head' },
      h(
        'h4',
        { id: headingId },
        h('span', { className: 'reservation-id' }, `#${id}`),
        ' ',
        h('span', { className: 'guest' }),
      ),
      h('span', { className: 'state' }),
    ),
    h(
      'dl',
      { className: 'facts' },
      h('dt', {}, 'Start'),
      h('dd', { className: 'start' }),
      h('dt', {}, 'Party'),
      h('dd', { className: 'party' }),
      h('dt', {}, 'Made by'),
      h('dd', { className: 'source' }),
    ),
    h(
      'div',
      { className: 'button-row actions' },
      button(
        'Confirm',
        'confirm',
        () => actions.confirm(restaurantId, id),
        `Reservation ${id} confirmed by the restaurant.`,
      ),
      button(
        'Cancel as restaurant',
        'cancel-restaurant danger',
        () => actions.cancel(restaurantId, id, 'restaurant'),
        `Reservation ${id} cancelled by the restaurant.`,
      ),
      button(
        'Cancel as customer',
        'cancel-customer danger',
        () => actions.cancel(restaurantId, id, 'customer'),
        `Reservation ${id} cancelled by the customer.`,
      ),
      modifyToggle,
    ),
    form,
    alert,
  );
}

function updateReservationEntry(
  entry: HTMLLIElement,
  reservation: Reservation,
  partnerNames: Map<string, string>,
): void {
  const state = stateOf(reservation);
  setText(
    entry.querySelector('.guest')!,
    `${reservation.first_name ?? ''} ${reservation.last_name ?? ''}`.trim() || '(no name)',
  );
  const badge = entry.querySelector<HTMLElement>('.state')!;
  // Who cancelled matters to a partner's support: its own call, the restaurant or the guest.
  setText(
    badge,
    state === 'cancelled' && reservation.cancelledBy ? `cancelled by the ${reservation.cancelledBy}` : state,
  );
  badge.className = `state state-${state}`;
  entry.dataset.state = state;
  setText(entry.querySelector('.start')!, formatLocalTime(reservation.start_time));
  const adults = reservation.adults ?? 0;
  const children = reservation.children ?? 0;
  setText(
    entry.querySelector('.party')!,
    `${adults} adult${adults === 1 ? '' : 's'}, ${children === 1 ? '1 child' : `${children} children`}`,
  );
  const source =
    reservation.partnerId === null
      ? `another channel: ${reservation.channel}`
      : `partner ${partnerNames.get(reservation.partnerId) ?? reservation.partnerId}`;
  setText(entry.querySelector('.source')!, source);
  const open = state === 'created' || state === 'confirmed';
  const focused = document.activeElement;
  show(entry.querySelector<HTMLElement>('.confirm')!, state === 'created');
  show(entry.querySelector<HTMLElement>('.cancel-restaurant')!, open);
  show(entry.querySelector<HTMLElement>('.cancel-customer')!, open);
  show(entry.querySelector<HTMLElement>('.modify-toggle')!, open);
  const form = entry.querySelector<HTMLFormElement>('.modify-form')!;
  if (!open) form.hidden = true;
  // A keyboard user whose button just went away (Confirm once confirmed) stays in the entry.
  if (focused instanceof HTMLElement && entry.contains(focused) && focused.closest('[hidden]')) {
    (entry.querySelector<HTMLElement>('.actions button:not([hidden])') ?? entry).focus();
  }
  // Half-typed changes in an open form are left alone; a closed one follows the reservation.
  if (form.hidden) {
    (form.elements.namedItem('start_time') as HTMLInputElement).value = toLocalInput(reservation.start_time);
    (form.elements.namedItem('adults') as HTMLInputElement).value = String(reservation.adults ?? 1);
    (form.elements.namedItem('children') as HTMLInputElement).value = String(reservation.children ?? 0);
  }
}

/** The restaurant's wall clock, on the fake's time. */
function drawLocalTime(section: HTMLElement): void {
  const zone = section.dataset.zone;
  if (zone) setText(section.querySelector('.local-now')!, wallTime(fakeNow(), zone).slice(0, 16));
}

export function createRestaurantsView(container: HTMLElement): (overview: LiveState) => void {
  const list = h('div', { className: 'restaurants' });
  setInterval(() => list.querySelectorAll<HTMLElement>('.restaurant').forEach(drawLocalTime), 1000);
  const empty = h('p', { className: 'muted' }, 'No restaurants. Add one with POST /_fake/restaurants.');
  container.append(h('h2', { id: 'restaurants-heading' }, 'Restaurants and reservations'), empty, list);
  return (overview) => {
    const partnerNames = new Map(overview.partners.map((partner) => [partner.partnerId, partner.name]));
    const restaurants = overview.restaurants;
    const reservationsOf = new Map<number, Reservation[]>();
    for (const reservation of overview.reservations) {
      reservationsOf.set(reservation.restaurantId, [
        ...(reservationsOf.get(reservation.restaurantId) ?? []),
        reservation,
      ]);
    }
    empty.hidden = restaurants.length > 0;
    syncList(
      list,
      restaurants,
      (restaurant) => String(restaurant.id),
      (restaurant) => {
        const headingId = uniqueId(`restaurant-${restaurant.id}`);
        const alert = h('p', { className: 'error', role: 'alert' });
        const { toggle, form } = createBookingForm(restaurant, alert);
        return h(
          'section',
          { className: 'restaurant card', 'aria-labelledby': headingId },
          h(
            'h3',
            { id: headingId },
            h('span', { className: 'name' }),
            ' ',
            h('span', { className: 'muted restaurant-id' }, `restaurant ${restaurant.id}`),
          ),
          h(
            'dl',
            { className: 'facts' },
            h('dt', {}, 'Timezone'),
            h(
              'dd',
              {},
              h('span', { className: 'zone' }),
              ' (now ',
              h('time', { className: 'local-now' }),
              ')',
            ),
            h('dt', {}, 'Confirmation'),
            h('dd', { className: 'mode' }),
            h('dt', {}, 'Opening hours'),
            h('dd', { className: 'hours' }),
            h('dt', {}, 'Partners'),
            h('dd', { className: 'linked' }),
          ),
          h(
            'h4',
            { className: 'list-heading' },
            'Reservations, every channel ',
            h('span', { className: 'count muted' }),
          ),
          h('p', { className: 'muted no-reservations' }, 'No reservations yet.'),
          h('ul', { className: 'reservations', 'aria-label': `Reservations at ${restaurant.display_name}` }),
          toggle,
          form,
          alert,
        );
      },
      (section, restaurant) => {
        const reservations = reservationsOf.get(restaurant.id) ?? [];
        setText(section.querySelector('.name')!, restaurant.display_name);
        setText(section.querySelector('.zone')!, restaurant.timezone);
        section.dataset.zone = restaurant.timezone;
        drawLocalTime(section);
        setText(
          section.querySelector('.mode')!,
          MODES[restaurant.confirmation_mode] ?? restaurant.confirmation_mode,
        );
        setText(
          section.querySelector('.hours')!,
          restaurant.availability.openingPeriods.map(describeOpeningPeriod).join('; ') || 'closed',
        );
        setText(
          section.querySelector('.linked')!,
          restaurant.partnerIds.map((id) => partnerNames.get(id) ?? id).join(', ') ||
            'none (only other channels)',
        );
        setText(section.querySelector('.count')!, `(${reservations.length})`);
        show(section.querySelector<HTMLElement>('.no-reservations')!, reservations.length === 0);
        syncList(
          section.querySelector<HTMLElement>('.reservations')!,
          reservations,
          (reservation) => String(reservation.id),
          (reservation) => createReservationEntry(reservation, restaurant.timezone),
          (entry, reservation) => updateReservationEntry(entry, reservation, partnerNames),
        );
      },
    );
  };
}
