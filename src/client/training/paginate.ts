import type { Paginated } from './types/pagination.js';

/**
 * Yields every item of a cursor-paginated list, one page at a time: the next page is asked for with `after`
 * set to the last id of the previous one, while `has_more` holds and the cursor moves. Stopping the loop early
 * fetches nothing more.
 */
export async function* paginate<T extends { id: string }>(
  fetchPage: (after: string | undefined) => Promise<Paginated<T>>,
  startAfter?: string,
): AsyncGenerator<T, void, undefined> {
  let after = startAfter;
  for (;;) {
    const page = await fetchPage(after);
    yield* page.data;
    const last = page.data.at(-1);
    // A page that claims more but does not move the cursor would be asked for again forever.
    if (!page.has_more || last === undefined || last.id === after) return;
    after = last.id;
  }
}
