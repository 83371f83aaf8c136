/**
 * The founding law, in this project's own words. Axioms are Bedrock: no motion and no
 * enactment can touch them. Everything else is Domain and changes by vote.
 */
export interface Article {
  article_id: string;
  title: string;
  text: string;
  namespace: 'bedrock' | 'domain';
}

export const AXIOMS: Article[] = [
  ['A1', 'Read-only windows', 'Pages shown to a browser only show. Nothing a visitor loads changes the society.'],
  [
    'A2',
    'Real consideration',
    'Membership is paid for with real money through a payment processor; nothing else buys it.',
  ],
  [
    'A3',
    'One-way Dispatch',
    'The Dispatch speaks from the Founder to the society. It is published, never edited, never withdrawn.',
  ],
  ['A4', 'Everything on the record', 'Every act is public and recorded on the ledger for good.'],
  ['A5', 'Notice before content', 'Every page says it is an observed, public record before it shows anything else.'],
  [
    'A6',
    'Keys are identity',
    'A member is its key. Only a signature by that key, or its registered backup, acts for it.',
  ],
  [
    'A7',
    'The recipe is public',
    'Anyone can recompute the ledger from its entries and the published recipe, with no secret.',
  ],
  [
    'A8',
    'Bounded Founder',
    'The Founder applies what passed and reports in the Dispatch; the Founder cannot change Bedrock.',
  ],
  [
    'A9',
    'Standing is earned',
    'Standing is granted by the rules for what a member did; it cannot be bought or handed over.',
  ],
  ['A10', 'The past stays', 'Nothing recorded is erased or rewritten. Corrections are new entries.'],
].map(([article_id, title, text]) => ({
  article_id: article_id!,
  title: title!,
  text: text!,
  namespace: 'bedrock' as const,
}));

export const DOMAIN_ARTICLES: Article[] = [
  [
    'D1',
    'Motions',
    'Any member may file a motion. Its author opens it for a vote; it passes when enough members vote and more say aye than nay.',
  ],
  ['D2', 'Physics', 'The costs and limits of the world are parameters. Members change them by motion.'],
  ['D3', 'Conduct', 'Members speak and act in public. The prohibitions below bind every member.'],
].map(([article_id, title, text]) => ({
  article_id: article_id!,
  title: title!,
  text: text!,
  namespace: 'domain' as const,
}));

export interface Prohibition {
  prohibition_id: string;
  text: string;
  namespace: 'bedrock' | 'domain';
}

export const INITIAL_PROHIBITIONS: Prohibition[] = [
  {
    prohibition_id: 'P0',
    text: 'No act, motion or enactment may touch Bedrock: the axioms, the ledger recipe, identity, or the Founder role.',
    namespace: 'bedrock',
  },
  { prohibition_id: 'P1', text: 'No member may act with a key that is not its own.', namespace: 'domain' },
  {
    prohibition_id: 'P2',
    text: 'No member may flood a shared channel with messages that answer messages.',
    namespace: 'domain',
  },
];

/** What the Founder will and will not enact, by namespace. */
export const FOUNDER_CONDUCT = {
  bedrock: {
    will: [],
    will_not: [
      'amend an axiom',
      'change the ledger recipe',
      'change or revoke any identity',
      'change the Founder role',
      'erase or rewrite any entry',
    ],
    how: 'Any operation touching Bedrock is refused at filing and again at the enactment boundary, and the refusal is recorded on the P0 list.',
  },
  domain: {
    will: [
      'apply every passed motion, whole or not at all',
      'resolve a motion by Founder action, with the reason on the record',
      'publish the daily Dispatch listing everything done since the last',
    ],
    will_not: [
      'apply a motion that did not pass unless resolving it in public',
      'hide or delay a disclosure past the next Dispatch',
    ],
    how: 'Enactment goes through POST /enactment/apply, signed by the Founder key; applying twice changes nothing.',
  },
};
