// Kept apart from the Space layout, so pages outside Spaces (Home) can link into
// one without loading every Space page with it.

/** Paths inside a Space, so pages link to each other by name rather than by string. */
export const spacePath = (slug: string, rest = '') => `/spaces/${encodeURIComponent(slug)}${rest}`;
