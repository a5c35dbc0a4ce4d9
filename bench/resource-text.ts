/** About 4 KiB of Markdown, a typical working document. */
export const RESOURCE_TEXT = Array.from({ length: 64 }, (_, i) => `- item ${i}: notes about **topic ${i}**, see [link](https://example.test/${i})`).join('\n');
