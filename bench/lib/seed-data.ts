// Small vocabularies combined by hash, so a million leads get varied but reproducible contact details.

const words = (text: string) => text.trim().split(/\s+/);
const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => l.trim());

export const FIRST_NAMES = words(`
  Olivia Amelia Isla Ava Ivy Freya Lily Florence Mia Willow Rosie Sophia Isabella Grace Daisy Sienna
  Poppy Elsie Emily Ella Evelyn Phoebe Sofia Evie Charlotte Harper Matilda Ruby Hannah Chloe Noah Oliver
  George Arthur Muhammad Leo Harry Oscar Archie Henry Theodore Freddie Jack Charlie Theo Alfie Jacob
  Thomas Finley Arlo William Lucas Roman Tommy Isaac Teddy Alexander Luca Edward James Priya Aisha Zara
  Mohammed Ibrahim Yusuf Omar Anika Mateo Niamh
`);

export const LAST_NAMES = words(`
  Smith Jones Taylor Brown Williams Wilson Johnson Davies Patel Robinson Wright Thompson Evans Walker
  White Roberts Green Hall Thomas Clarke Jackson Wood Harris Edwards Turner Martin Cooper Hill Ward Hughes
  Moore Clark King Harrison Lewis Baker Lee Allen Morris Khan Scott Watson Davis Parker James Bennett
  Young Phillips Richardson Mitchell Bailey Carter Cook Singh Shaw Bell Collins Morgan Kelly Begum Miller
  Cox Hussain Marshall Simpson Price Anderson Adams Wilkinson Ali Ahmed Foster Ellis Murphy Chapman Mason
  Gray Richards Webb Griffiths
`);

export const POSTCODES = lines(`
  SW1A 1AA
  EC1A 1BB
  W1A 0AX
  M1 1AE
  B33 8TH
  CR2 6XH
  LS1 4AP
  BS1 4DJ
  G1 1XQ
  EH1 1YZ
  CF10 1EP
  NE1 7RU
  L1 8JQ
  NG1 5FW
  S1 2HE
  OX1 2JD
  CB2 1TN
  BN1 1AE
  RG1 1AZ
  PL1 1EA
  YO1 7HH
  BT1 5GS
  AB10 1AB
  SO14 7DW
`);

/** Leads the API bench creates through POST carry this source, so they never count as seeded. */
export const POSTED_SOURCE = 'bench_post';

export const SOURCES = words('facebook_ads google_ads website_form referral tiktok_ads linkedin_ads');
export const BUDGETS = words('under_5k 5k_15k 15k_50k over_50k');
export const TIMEFRAMES = words('asap this_month next_quarter just_browsing');

export const MESSAGE_BODIES = lines(`
  Hi, is this still available? I would like a quote for next month.
  Can you call me after 5pm? Mornings are difficult.
  Thanks for the details. What would the total cost be including installation?
  We are comparing three suppliers, can you send over your brochure?
  Please email rather than phone, I am at work most of the day.
  Yes, Thursday at 10am works for us. See you then.
  Could you do a slightly lower price if we book this week?
  Not interested any more, we went with someone local. Thanks anyway.
`);
