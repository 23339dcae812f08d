/**
 * Forms of common irregular English verbs that no suffix stemmer joins (`went` and `go`, `met`
 * and `meet`). Ranked any-term search (docs/behavior/search.md#stemming) widens a query word that
 * is one of these forms to all forms of its verb, so "when did she go" finds "she went".
 * Each line: base, third person, -ing, past, past participle (and spelling variants). The third
 * person and -ing forms have the same Porter stem as the base (`buys`, `buying`: `bui`, like
 * `buy`), so a stemming index holds them as one token; a line that differs marks the forms that
 * do with `~` (a `~` on the base: none does). A test checks every line against the stemmer, which
 * the Worker bundle then need not carry for this.
 */
const GROUPS = `
arise arises arising arose arisen
be is are am being~ was were been
beat beats beating beaten
become becomes becoming became
begin begins beginning began begun
bend bends bending bent
bet bets betting
bind binds binding bound
bite bites biting bit bitten
bleed bleeds bleeding bled
blow blows blowing blew blown
break breaks breaking broke broken
breed breeds breeding bred
bring brings bringing brought
build builds building built
burn burns~ burning~ burnt burned~
buy buys buying bought
catch catches catching caught
choose chooses choosing chose chosen
come comes coming came
cost costs costing
creep creeps creeping crept
cut cuts cutting
deal deals dealing dealt
dig digs digging dug
do does doing~ did done
draw draws drawing drew drawn
dream dreams~ dreaming~ dreamt dreamed~
drink drinks drinking drank drunk
drive drives driving drove driven
eat eats eating ate eaten
fall falls falling fell fallen
feed feeds feeding fed
feel feels feeling felt
fight fights fighting fought
find finds finding found
fly flies flying~ flew flown
forget forgets forgetting forgot forgotten
forgive forgives forgiving forgave forgiven
freeze freezes freezing froze frozen
get gets getting got gotten
give gives giving gave given
go goes going~ went gone
grow grows growing grew grown
hang hangs hanging hung
have has having~ had
hear hears hearing heard
hide hides hiding hid hidden
hit hits hitting
hold holds holding held
hurt hurts hurting
keep keeps keeping kept
know knows knowing knew known
lay lays laying laid
lead leads leading led
learn learns~ learning~ learnt learned~
leave leaves leaving left
lend lends lending lent
let lets letting
lie~ lies lying lay lain
lose loses losing lost
make makes making made
mean means meaning meant
meet meets meeting met
pay pays paying paid
put puts putting
quit quits quitting
read reads reading
ride rides riding rode ridden
ring rings ringing rang rung
rise rises rising risen
run runs running ran
say says saying said
see sees seeing saw seen
seek seeks seeking sought
sell sells selling sold
send sends sending sent
set sets setting
shake shakes shaking shook shaken
shine shines shining shone
shoot shoots shooting shot
show shows~ showing~ showed~ shown
shut shuts shutting
sing sings singing sang sung
sink sinks sinking sank sunk
sit sits sitting sat
sleep sleeps sleeping slept
slide slides sliding slid
speak speaks speaking spoke spoken
spend spends spending spent
split splits splitting
spread spreads spreading
stand stands standing stood
steal steals stealing stole stolen
stick sticks sticking stuck
sting stings stinging stung
strike strikes striking struck
swear swears swearing swore sworn
swim swims swimming swam swum
swing swings swinging swung
take takes taking took taken
teach teaches teaching taught
tell tells telling told
think thinks thinking thought
throw throws throwing threw thrown
understand understands understanding understood
wake wakes waking woke woken
wear wears wearing wore worn
win wins winning won
write writes writing wrote written
`;

const FORMS = new Map<string, readonly string[]>();
/** Each form with the base's Porter stem, by the base. */
const SAME_STEM = new Map<string, string>();
for (const line of GROUPS.trim().split("\n")) {
  const marked = line.trim().split(/\s+/u);
  const forms = marked.map((form) => form.replace("~", ""));
  const explicit = line.includes("~");
  for (const [at, form] of forms.entries()) {
    if (FORMS.has(form)) continue;
    FORMS.set(form, forms);
    if (at && (explicit ? marked[at] !== form : at < 3))
      SAME_STEM.set(form, forms[0]!);
  }
}

/**
 * Every form of the irregular verb `word` (lower case) is one of, itself first; `[word]` for any
 * other word. Where a form belongs to two verbs (`lay`, `found`), the first listed wins.
 */
export function verbForms(word: string): readonly string[] {
  const forms = FORMS.get(word);
  if (!forms) return [word];
  return [word, ...forms.filter((form) => form !== word)];
}

/**
 * The key forms of one verb share when a Porter stemmer makes them one token: the line's first
 * form for a form marked `~` (`buying` → `buy`), else the form itself (lower case in, as out).
 */
export function verbStemKey(form: string): string {
  return SAME_STEM.get(form) ?? form;
}

/** Every line of the table, forms in order (for tests). */
export function irregularVerbLines(): string[][] {
  return [...new Set(FORMS.values())].map((forms) => [...forms]);
}
