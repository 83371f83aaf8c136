/** The media type of a Content-Type, parameters dropped, lowercase ('' when there is none). */
export function mediaTypeOf(content_type: string | null): string {
  return (content_type ?? '').split(';')[0]!.trim().toLowerCase();
}

/** application/json and the +json types. */
export function isJson(content_type: string | null): boolean {
  const media = mediaTypeOf(content_type);
  return media === 'application/json' || media.endsWith('+json');
}
