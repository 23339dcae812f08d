/**
 * The conversation list drawn as a window: only the items near the screen are in the document,
 * between two spacers that stand for the rest at their measured (or estimated) heights. The page
 * itself scrolls, so keyboard, find-in-page of what is drawn and screen readers behave as usual.
 * Whatever changes size or is added above the screen (older messages, an expanded overlay), the
 * first item on screen stays where it was.
 */

/** One entry of the list: a message, an overlay, a run of tool calls. */
export interface WindowItem {
  /** Stable across re-renders: measured heights are kept by key. */
  key: string;
  /** Message ids the item shows, to find the item of a message. */
  ids: readonly string[];
}

/** What the window needs from the view. */
export interface WindowOptions<T extends WindowItem> {
  items: T[];
  render: (item: T) => HTMLElement;
  /** Called when the top of the list is near the screen; resolves to older items (or none). */
  loadOlder?: () => Promise<T[]>;
}

/** Height assumed for an item never drawn. */
const ESTIMATE = 96;
/** Space between items (matches `.chat.windowed > .message` in the styles). */
const GAP = 12;
/** How far beyond the screen items are drawn, in pixels, above and below. */
const OVERSCAN = 800;

/** Where an item is relative to the top of the screen, to put it back there. */
interface Anchor {
  key: string;
  top: number;
}

/** A windowed list; `element` goes in the page, then `start()` draws it. */
export class ChatWindow<T extends WindowItem> {
  readonly element: HTMLOListElement;
  /** Loads the older messages by hand: they load by themselves only as the reader scrolls up. */
  readonly olderButton: HTMLButtonElement;
  #items: T[];
  #heights = new Map<string, number>();
  #offsets = new Float64Array(1);
  #drawn = new Map<string, HTMLElement>();
  #first = 0;
  #last = -1;
  #top = document.createElement("li");
  #bottom = document.createElement("li");
  #frame = 0;
  #loading = false;
  #noOlder: boolean;
  /** True until the reader scrolls away from the end: new heights keep the end in view. */
  #pinned = false;
  #observer: ResizeObserver;
  #onScroll = () => this.schedule();
  #render: (item: T) => HTMLElement;
  #loadOlder: (() => Promise<T[]>) | undefined;

  constructor(options: WindowOptions<T>, label: string) {
    this.#items = options.items;
    this.#render = options.render;
    this.#loadOlder = options.loadOlder;
    this.#noOlder = !options.loadOlder;
    this.element = document.createElement("ol");
    this.element.className = "chat windowed";
    this.element.setAttribute("aria-label", label);
    for (const spacer of [this.#top, this.#bottom]) {
      spacer.className = "window-spacer";
      spacer.setAttribute("aria-hidden", "true");
    }
    this.element.append(this.#top, this.#bottom);
    this.olderButton = document.createElement("button");
    this.olderButton.type = "button";
    this.olderButton.className = "older";
    this.olderButton.textContent = "Show older messages";
    this.olderButton.hidden = this.#noOlder;
    this.olderButton.addEventListener(
      "click",
      () => void this.#older(true).then(() => this.schedule()),
    );
    this.#observer = new ResizeObserver((entries) => {
      let changed = false;
      for (const entry of entries) {
        const key = (entry.target as HTMLElement).dataset.windowKey;
        if (!key || !this.#drawn.has(key)) continue;
        const height = (entry.target as HTMLElement).offsetHeight + GAP;
        if (height !== this.#heights.get(key)) {
          this.#heights.set(key, height);
          changed = true;
        }
      }
      if (changed) this.#relayout();
    });
    this.#measureAll();
  }

  /** The items, in order. */
  get items(): readonly T[] {
    return this.#items;
  }

  /**
   * Starts drawing once the list is in the document: at the end (`"end"`), or with the item of
   * `messageId` in the middle of the screen; resolves to that item's element.
   */
  async start(at: "end" | { messageId: string }): Promise<HTMLElement | null> {
    window.addEventListener("scroll", this.#onScroll, { passive: true });
    window.addEventListener("resize", this.#onScroll, { passive: true });
    if (at === "end") {
      this.#pinned = true;
      this.#drawAround(this.#items.length - 1);
      this.#scrollToEnd();
      this.#draw();
      return null;
    }
    let index = this.indexOf(at.messageId);
    while (index === -1 && !this.#noOlder) {
      await this.#older();
      index = this.indexOf(at.messageId);
    }
    if (index === -1) return null;
    this.#drawAround(index);
    const element = this.#drawn.get(this.#items[index]!.key) ?? null;
    element?.scrollIntoView({ block: "center" });
    this.#draw();
    // Heights measured while drawing may have moved it: once more, now that they are known.
    const settled = this.#drawn.get(this.#items[index]!.key) ?? null;
    settled?.scrollIntoView({ block: "center" });
    return settled;
  }

  /**
   * Replaces the items (the same messages, grouped anew: the tree arrived): what is drawn is
   * drawn again, and the first message on screen stays where it was.
   */
  replaceItems(items: T[]): void {
    const anchor = this.anchorMessage();
    for (const element of this.#drawn.values()) {
      this.#observer.unobserve(element);
      element.remove();
    }
    this.#drawn = new Map();
    this.#items = items;
    this.#first = 0;
    this.#last = -1;
    this.#measureAll();
    this.#placeSpacers();
    if (!this.element.isConnected) return;
    if (this.#pinned || !anchor) {
      this.#draw();
      return;
    }
    const index = this.indexOf(anchor.messageId);
    if (index === -1) return this.#draw();
    this.#drawAround(index);
    const element = this.#drawn.get(this.#items[index]!.key);
    if (element) scrollBy(0, element.getBoundingClientRect().top - anchor.top);
    this.#draw();
  }

  /** Stops listening to the page (the view was replaced). */
  stop(): void {
    window.removeEventListener("scroll", this.#onScroll);
    window.removeEventListener("resize", this.#onScroll);
    cancelAnimationFrame(this.#frame);
    this.#observer.disconnect();
  }

  /** The index of the item showing a message, or -1. */
  indexOf(messageId: string): number {
    return this.#items.findIndex((item) => item.ids.includes(messageId));
  }

  /** The first message on screen and how far below the top of the screen it is. */
  anchorMessage(): { messageId: string; top: number } | null {
    const anchor = this.#anchor();
    const item =
      anchor && this.#items.find((entry) => entry.key === anchor.key);
    return item && item.ids[0] !== undefined
      ? { messageId: item.ids[0], top: anchor.top }
      : null;
  }

  /** True when the end of the list is on screen. */
  atEnd(): boolean {
    return (
      window.innerHeight + window.scrollY >=
      document.documentElement.scrollHeight - 40
    );
  }

  /** Redraws on the next frame. */
  schedule(): void {
    cancelAnimationFrame(this.#frame);
    this.#frame = requestAnimationFrame(() => {
      if (this.#pinned && !this.atEnd()) this.#pinned = false;
      this.#draw();
    });
  }

  // --- Internal helpers ---

  #measureAll(): void {
    const offsets = new Float64Array(this.#items.length + 1);
    for (let index = 0; index < this.#items.length; index++)
      offsets[index + 1] =
        offsets[index]! +
        (this.#heights.get(this.#items[index]!.key) ?? ESTIMATE);
    this.#offsets = offsets;
  }

  #listTop(): number {
    return this.element.getBoundingClientRect().top + window.scrollY;
  }

  /** Draws the items near the screen, keeping the first one on screen in place. */
  #draw(): void {
    if (!this.element.isConnected) return;
    const anchor = this.#anchor();
    const listTop = this.#listTop();
    const from = window.scrollY - listTop - OVERSCAN;
    const to = window.scrollY + window.innerHeight - listTop + OVERSCAN;
    let first = this.#search(from);
    let last = Math.max(first, this.#search(to));
    if (this.#items.length === 0) {
      first = 0;
      last = -1;
    }
    if (first !== this.#first || last !== this.#last) {
      this.#show(first, last);
      this.#restore(anchor);
    }
    if (this.#pinned) this.#scrollToEnd();
    // Not while the page's header is on screen: the reader went to the top (Home, a tab or a
    // header action focused), and older messages going in above would push it away again.
    if (
      !this.#noOlder &&
      !this.#loading &&
      listTop <= window.scrollY &&
      window.scrollY - listTop <
        (this.#offsets[Math.min(5, this.#items.length)] ?? 0) + OVERSCAN
    )
      void this.#older().then(() => this.schedule());
  }

  /** Draws around one item (before the page has scrolled to it). */
  #drawAround(index: number): void {
    const height = window.innerHeight + 2 * OVERSCAN;
    let first = index;
    let last = index;
    let room = height;
    while (first > 0 && room > 0) room -= this.#heightAt(--first);
    room = height;
    while (last < this.#items.length - 1 && room > 0)
      room -= this.#heightAt(++last);
    this.#show(first, last);
  }

  #heightAt(index: number): number {
    return this.#heights.get(this.#items[index]!.key) ?? ESTIMATE;
  }

  /** The index of the item at `y` (pixels from the top of the list). */
  #search(y: number): number {
    let low = 0;
    let high = this.#items.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.#offsets[middle + 1]! <= y) low = middle + 1;
      else high = middle;
    }
    return Math.max(0, low);
  }

  /** Puts items `first..last` in the document (reusing those already there) and measures them. */
  #show(first: number, last: number): void {
    const keep = new Map<string, HTMLElement>();
    const elements: HTMLElement[] = [];
    for (let index = first; index <= last; index++) {
      const item = this.#items[index]!;
      let element = this.#drawn.get(item.key);
      if (!element) {
        element = this.#render(item);
        element.dataset.windowKey = item.key;
      }
      keep.set(item.key, element);
      elements.push(element);
    }
    for (const [key, element] of this.#drawn)
      if (!keep.has(key)) {
        this.#observer.unobserve(element);
        element.remove();
      }
    // Insert in order after the top spacer; elements already in place stay (no re-layout of them).
    let previous: Element = this.#top;
    for (const element of elements) {
      if (previous.nextElementSibling !== element) previous.after(element);
      previous = element;
    }
    for (const [key, element] of keep)
      if (!this.#drawn.has(key)) this.#observer.observe(element);
    this.#drawn = keep;
    this.#first = first;
    this.#last = last;
    for (const [key, element] of keep)
      this.#heights.set(key, element.offsetHeight + GAP);
    this.#measureAll();
    this.#placeSpacers();
  }

  #placeSpacers(): void {
    const total = this.#offsets[this.#items.length] ?? 0;
    const above = this.#offsets[this.#first] ?? 0;
    const below = total - (this.#offsets[this.#last + 1] ?? total);
    this.#top.style.height = `${above}px`;
    this.#bottom.style.height = `${Math.max(0, below)}px`;
  }

  /** After heights changed: new offsets and spacers, the screen kept in place. */
  #relayout(): void {
    const anchor = this.#anchor();
    this.#measureAll();
    this.#placeSpacers();
    this.#restore(anchor);
    if (this.#pinned) this.#scrollToEnd();
  }

  #anchor(): Anchor | null {
    for (const [key, element] of this.#drawn) {
      const box = element.getBoundingClientRect();
      if (box.bottom > 0) return { key, top: box.top };
    }
    return null;
  }

  #restore(anchor: Anchor | null): void {
    if (!anchor || this.#pinned) return;
    const element = this.#drawn.get(anchor.key);
    if (!element) return;
    const moved = element.getBoundingClientRect().top - anchor.top;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
  }

  #scrollToEnd(): void {
    window.scrollTo(0, document.documentElement.scrollHeight);
  }

  /** Adds the older items before the first one. */
  async #older(keepHeader = false): Promise<void> {
    if (this.#noOlder || this.#loading || !this.#loadOlder) return;
    this.#loading = true;
    this.element.setAttribute("aria-busy", "true");
    this.olderButton.disabled = true;
    try {
      const older = await this.#loadOlder();
      if (older.length === 0) {
        this.#noOlder = true;
        this.olderButton.hidden = true;
        return;
      }
      // Asked for with the button, they go in below the page's header, which stays on screen;
      // else the message the reader is on stays where it is.
      const anchor = keepHeader ? null : this.#anchor();
      this.#items = [...older, ...this.#items];
      this.#first += older.length;
      this.#last += older.length;
      this.#measureAll();
      this.#placeSpacers();
      this.#restore(anchor);
    } finally {
      this.#loading = false;
      this.element.removeAttribute("aria-busy");
      this.olderButton.disabled = false;
    }
  }
}
