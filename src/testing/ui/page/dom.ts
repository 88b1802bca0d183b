/**
 * The page's only "UI library": an element builder and a keyed list update. Text always goes in
 * through `textContent` (never HTML), so data from the fake can never become markup.
 * @module
 */

type Child = Node | string | null | undefined | false;
type Props = Record<string, string | number | boolean | EventListener | undefined>;

/** Builds an element: `h('button', { type: 'button', onclick: run }, 'Confirm')`. */
export function h<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[Tag] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'className') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(
    ...children.filter(
      (child): child is Node | string => child !== null && child !== undefined && child !== false,
    ),
  );
  return element;
}

/** Sets text only when it changed, so screen readers and selections are left alone otherwise. */
export function setText(node: Element, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** Shows or hides an element (hidden elements leave the accessibility tree too). */
export function show(node: HTMLElement, visible: boolean): void {
  if (node.hidden === visible) node.hidden = !visible;
}

/**
 * Brings a list element in line with `items`, keyed: an entry is created once and then only
 * updated, so focus, open forms and half-typed input inside it survive every live update.
 */
export function syncList<Item, Entry extends HTMLElement>(
  list: HTMLElement,
  items: readonly Item[],
  keyOf: (item: Item) => string,
  create: (item: Item) => Entry,
  update: (entry: Entry, item: Item) => void,
): void {
  const existing = new Map<string, Entry>();
  for (const child of [...list.children] as Entry[]) existing.set(child.dataset.key ?? '', child);
  let previous: Element | null = null;
  for (const item of items) {
    const key = keyOf(item);
    let entry = existing.get(key);
    if (entry) existing.delete(key);
    else {
      entry = create(item);
      entry.dataset.key = key;
    }
    update(entry, item);
    const expectedPlace: Element | null = previous ? previous.nextElementSibling : list.firstElementChild;
    if (expectedPlace !== entry) list.insertBefore(entry, expectedPlace);
    previous = entry;
  }
  for (const stale of existing.values()) stale.remove();
}

/** A unique id for label/field pairs. */
let counter = 0;
export const uniqueId = (prefix: string): string => `${prefix}-${(counter += 1)}`;

/** A labelled form field: `<label for>` + input, wrapped for layout. */
export function field(
  label: string,
  input: HTMLInputElement | HTMLSelectElement,
  hint?: string,
): HTMLElement {
  input.id ||= uniqueId('field');
  const hintElement = hint ? h('span', { className: 'hint', id: `${input.id}-hint` }, hint) : null;
  if (hintElement) input.setAttribute('aria-describedby', hintElement.id);
  return h('div', { className: 'field' }, h('label', { for: input.id }, label), input, hintElement);
}

/** Visually hidden text that completes an accessible name ("Remove" + " fault 3"). */
export const hiddenText = (text: string): HTMLElement => h('span', { className: 'visually-hidden' }, text);
