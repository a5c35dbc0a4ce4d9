import type { ReactNode } from 'react';
import { Time } from './ui';

/** What every credential the person holds has: when it was last used, and whether it is revoked. */
export interface Revocable {
  id: string;
  last_used_ts: string | null;
  revoked_ts: string | null;
}

/** One column: its heading, which also labels the cell when the table reads as cards on a phone. */
export interface CredentialColumn<T> {
  label: string;
  cell: (credential: T) => ReactNode;
}

/**
 * A table of credentials, newest first, each with when it was last used, its
 * status and, while it is active, a Revoke button. Revoking is the page's: it
 * confirms and calls, so `onRevoke` gets the button, to give focus back to.
 */
export function CredentialList<T extends Revocable>({
  credentials,
  caption,
  name,
  columns,
  revokeLabel,
  onRevoke,
}: {
  credentials: T[];
  caption: string;
  /** The row's heading: what the credential was given to. */
  name: CredentialColumn<T>;
  /** The columns between the name and when it was last used. */
  columns: CredentialColumn<T>[];
  /** The Revoke button's accessible name: says which credential it revokes. */
  revokeLabel: (credential: T) => string;
  onRevoke: (credential: T, button: HTMLButtonElement) => void;
}) {
  return (
    <div className="table-scroll">
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{name.label}</th>
            {columns.map((column) => (
              <th key={column.label} scope="col">
                {column.label}
              </th>
            ))}
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {credentials.map((c) => (
            <tr key={c.id} className={c.revoked_ts ? 'revoked' : undefined}>
              <th scope="row" className="client-cell" data-label={name.label}>
                {name.cell(c)}
              </th>
              {columns.map((column) => (
                <td key={column.label} data-label={column.label}>
                  {column.cell(c)}
                </td>
              ))}
              <td data-label="Last used">{c.last_used_ts ? <Time iso={c.last_used_ts} /> : 'Never'}</td>
              <td data-label="Status">
                {c.revoked_ts ? (
                  <>
                    Revoked <Time iso={c.revoked_ts} />
                  </>
                ) : (
                  'Active'
                )}
              </td>
              <td className="row-actions">
                {c.revoked_ts ? null : (
                  <button type="button" className="danger secondary" aria-label={revokeLabel(c)} onClick={(event) => onRevoke(c, event.currentTarget)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
