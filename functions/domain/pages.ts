/** A page of a list and how it is asked for: every list port and use case speaks these. */

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
