import { useParams } from 'wouter';
import { useHostFeatures } from '../api/host';
import { useStanding } from '../api/standing';
import { Loading, PageHeading, useTitle } from '../app/page';
import { useSpace } from '../spaces/space';
import { MAX_PINS } from './data';
import { PinOrder } from './pin-order';
import { Proposals, ProposePin } from './proposals';
import '../spaces/spaces.css';

// The Space's pins and the proposals to add one (docs/pins.md). Owners and
// Hosts reorder with Move up / Move down buttons rather than drag and drop,
// so the keyboard, a screen reader and a mouse all do it the same way; each
// move is the whole new list (`POST …/pins`), announced with its new place.

export function PinsPage() {
  const { slug } = useParams<{ slug: string }>();
  const space = useSpace(slug);
  useTitle(`Pins · ${space.data?.name ?? slug}`);
  const standing = useStanding(slug);
  const features = useHostFeatures();
  if (!space.data) return <Loading what="the Space" />;
  const active = space.data.status === 'active';
  // "May act" (protocol: Space admission): admitted, or any active member of an open Space not removed from it.
  const mayAct =
    standing.me !== null &&
    (standing.ownerOrHost || standing.membership === 'admitted' || (space.data.join_policy === 'open' && standing.membership !== 'removed'));
  return (
    <section className="pins-page">
      <PageHeading>Pins</PageHeading>
      <p>
        The front page shows up to {MAX_PINS} pins in this order: Resources of this Space
        {features.data?.repository_pins ? ', or Markdown files of this host’s repository' : ''}. The first is the Space’s
        README. Members propose a Resource with a reason; an Owner or Host accepts or declines.
      </p>
      {!active ? <p className="notice">This Space is {space.data.status}: its pins cannot change now.</p> : null}
      <PinOrder space={space.data} canArrange={standing.ownerOrHost && active} />
      {mayAct && active ? <ProposePin slug={slug} /> : null}
      <Proposals slug={slug} canDecide={standing.ownerOrHost && active} />
    </section>
  );
}
