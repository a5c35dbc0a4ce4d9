import { useParams } from 'wouter';
import { PageHeading, useTitle } from '../app/page';
import { Link } from '../app/router';
import { Handle, Loaded, ShowMore, Time } from '../app/ui';
import { spacePath } from '../spaces/space';
import { useMayWrite, useResourceList } from './queries';
import { resourcePath } from './shared';

export function ResourceListPage() {
  const { slug } = useParams<{ slug: string }>();
  useTitle('Resources');
  const list = useResourceList(slug);
  const { mayWrite } = useMayWrite(slug);
  return (
    <section>
      <div className="resource-heading">
        <PageHeading>Resources</PageHeading>
        {mayWrite ? (
          <Link to={spacePath(slug, '/resources/new')} className="link-button">
            New Resource
          </Link>
        ) : null}
      </div>
      <p className="muted">Markdown documents of this Space, most recently changed first. Every change is kept as a version.</p>
      <Loaded query={list} what="the Resources">
        {(data) => {
          const resources = data.pages.flatMap((p) => p.resources);
          if (resources.length === 0) return <p>No Resources yet.</p>;
          return (
            <>
              <div className="table-scroll">
                <table className="resource-table">
                  <caption className="visually-hidden">Resources, most recently changed first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Version</th>
                      <th scope="col">Changed</th>
                      <th scope="col">By</th>
                    </tr>
                  </thead>
                  <tbody>
                    {resources.map((r) => (
                      <tr key={r.id}>
                        <th scope="row" data-label="Name">
                          <Link to={resourcePath(slug, r.id)}>{r.name}</Link>
                        </th>
                        <td data-label="Version">{r.current_version}</td>
                        <td data-label="Changed">
                          <Time iso={r.updated_ts} />
                        </td>
                        <td data-label="By">
                          <Handle handle={r.updated_by} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {list.hasNextPage ? (
                <ShowMore busy={list.isFetchingNextPage} onClick={list.fetchNextPage}>
                  Show more Resources
                </ShowMore>
              ) : null}
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
