/**
 * Function words and question scaffolding per language, for ranked any-term search
 * (docs/behavior/search.md#stop-words): a query's words in these lists do not count against a
 * match. Written for Arbor from each language's articles, pronouns, auxiliaries, prepositions,
 * conjunctions and question words; lower case, compared without diacritics.
 *
 * Names, numbers and content words are never listed: a word that is a content word in another
 * of these languages is only dropped when the query reads as the list's language
 * (`stopwordLanguages`).
 */
const LISTS: Record<string, string> = {
  en: `
a about above after again against all am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does
doesn't doing don't down during each either ever few for from further had hadn't has hasn't
have haven't having he he'd he'll he's her here here's hers herself him himself his how how's
i i'd i'll i'm i've if in into is isn't it it's its itself just let's me more most much must
mustn't my myself neither no nor not now of off on once only or other ought our ours
ourselves out over own same shan't she she'd she'll she's should shouldn't so some such than
that that's the their theirs them themselves then there there's these they they'd they'll
they're they've this those through to too under until up upon us very was wasn't we we'd
we'll we're we've were weren't what what's whatever when when's where where's whether which
while who who's whom whose why why's will with won't would wouldn't yet you you'd you'll
you're you've your yours yourself yourselves also tell`,
  de: `
aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
anderes auch auf aus bei beim bin bis bist da damit dann das dass dein deine deinem deinen
deiner dem den denn der des dessen deshalb dich dies diese diesem diesen dieser dieses dir
doch dort du durch ein eine einem einen einer eines er es etwas euch euer eure für gegen
gewesen hab habe haben hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem
ihren ihrer im in ist ja jede jedem jeden jeder jedes jener jetzt kann kannst kein keine
können könnte man manche mein meine meinem meinen meiner mich mir mit muss musste nach nicht
nichts noch nun nur ob oder ohne sehr sein seine seinem seinen seiner seit sich sie sind so
solche soll sollte sondern sonst über um und uns unser unsere unter vom von vor wann war
waren warst warum was weil welche welchem welchen welcher welches wenn wer werde werden wie
wieder will wir wird wirst wo wollen wollte würde würden zu zum zur zwar zwischen woher
wohin wieso weshalb`,
  fr: `
au aux avec avez avons ce ceci cela celle celles celui ces cet cette chez comme comment
dans de des du elle elles en est et été étaient était êtes eu eux il ils je la le les leur
leurs lui ma mais me même mes moi mon ne nos notre nous on ont ou où par pas pour qu quand
que quel quelle quelles quels qui quoi sa sans se ses si son sont sur ta te tes toi ton tu
un une vos votre vous y avait avais ai as sommes suis sera serait pourquoi combien
lequel laquelle lesquels dont ceux aussi très`,
  es: `
a al algo algunas algunos ante antes como cómo con contra cual cuál cuales cuando cuándo
de del desde donde dónde durante el él ella ellas ellos en entre era eran es esa esas ese
eso esos esta está estaba estaban estado están estas este esto estos fue fueron fui ha había
han has hay he la las le les lo los mas más me mi mis mucho muy nada ni no nos nosotros o
os otra otros para pero poco por porque qué que quien quién quienes se sea sido sin sobre su
sus también te tiene tengo ti tu tus un una uno unos vosotros y ya yo cuánto cuánta cuántos
cuántas hizo hace`,
  pt: `
a ao aos as à às até com como da das de dela dele deles do dos e é ela elas ele eles em
entre era eram essa essas esse esses esta está estão estas este estes eu foi foram há isso
isto já lhe lhes mais mas me mesmo meu meus minha minhas muito na não nas nem no nos nós
nossa nosso num numa o os ou para pela pelas pelo pelos por porque qual quando que quem se
sem ser seu seus só sua suas também te tem tinha tu tua tuas um uma você vocês vos onde
quanto quanta quantos quantas fez faz`,
  it: `
a ad agli ai al alla alle allo anche che chi ci come con cosa cui da dagli dai dal dalla
dalle dallo degli dei del della delle dello di dove e è ed era erano gli ha hai hanno ho i il
in io la le lei li lo loro lui ma mi mia mie miei mio ne negli nei nel nella nelle nello noi
non nostra nostro o per perché più quale quando quanto quella quelle quello questa queste
questo si sia siamo siete sono su sua sue sui sul sulla suo suoi ti tra tu tua tue tuo tuoi
un una uno voi vostra vostro fatto fa`,
  nl: `
aan al alles als bij dan dat de der deze die dit doch door dus een en er ge geen geweest
had heb hebben heeft hem het hier hij hoe hun ik in is ja je kan kon maar me meer men met
mij mijn na naar niet niets nog nu of om omdat ons onze ook op over reeds te tegen toch toen
tot u uit uw van veel voor waar waarom wanneer want waren was wat we wel werd wie wij wil
worden wordt zal ze zei zich zij zijn zo zonder zou welke welk`,
};

/** Languages a stop word list exists for, ISO 639-1. */
export const STOPWORD_LANGUAGES: readonly string[] = Object.keys(LISTS);

const SETS = new Map<string, ReadonlySet<string>>(
  Object.entries(LISTS).map(([language, words]) => [
    language,
    new Set(words.split(/\s+/u).filter(Boolean).map(stopwordKey)),
  ]),
);

/**
 * The form a word is compared in: NFKC, lower case, diacritics removed, typographic apostrophes
 * as `'`, leading and trailing punctuation cut (`group?` → `group`, `"what` → `what`).
 */
export function stopwordKey(word: string): string {
  return word
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/gu, "'")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .normalize("NFC")
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
}

/**
 * True when `key` (a `stopwordKey`) is a stop word of `language`. A word with a digit never is;
 * a single letter always is (`s` of `what's`, `l` of `l'école`).
 */
export function isStopword(key: string, language: string): boolean {
  if (/\p{N}/u.test(key)) return false;
  if (Array.from(key).length === 1) return true;
  return SETS.get(language)?.has(key) ?? false;
}

/**
 * The languages a query reads as: those whose list holds the most of its words (several on a
 * tie), none when no word is in any list. A word is dropped only as a stop word of these, so
 * German `die` or `war` stays a word in an English question. A language other than English
 * needs two of its stop words in the query: one short word is too weak a sign (Dutch `met`,
 * "with", is English "met").
 */
export function stopwordLanguages(keys: readonly string[]): string[] {
  let best = 0;
  let languages: string[] = [];
  for (const [language, words] of SETS) {
    const count = keys.filter((key) => words.has(key)).length;
    if (count < (language === "en" ? 1 : 2) || count < best) continue;
    if (count > best) {
      best = count;
      languages = [];
    }
    languages.push(language);
  }
  return languages;
}
