/** The two storage backends; code branches on this only where SQL differs. */
export type Dialect = 'sqlite' | 'postgres';
