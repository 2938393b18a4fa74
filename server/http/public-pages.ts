/**
 * Tells the page cache that what signed-out visitors see has changed (a setting, a moderated generation), so that
 * the pages kept in memory are made again. Each process has its own; another process's cached pages follow within
 * their own lifetime.
 */
export class PublicPagesSignal {
  readonly #listeners = new Set<() => void>();

  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }

  changed(): void {
    for (const listener of this.#listeners) listener();
  }
}
