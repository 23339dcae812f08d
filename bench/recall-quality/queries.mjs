// The two forms every question is searched in: as asked, and as its keywords (what a model
// writes when it searches with "a handful of words"). The keyword form drops English stop words
// and question scaffolding; the list is the benchmark's own, fixed, so the keyword queries stay
// the same whatever the search does with stop words itself.
const STOP_WORDS = new Set(
  `a about above after again against all am an and any are aren't as at be because been before
  being below between both but by can can't could couldn't did didn't do does doesn't doing don't
  down during each either ever few for from further get gets got had hadn't has hasn't have
  haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd
  i'll i'm i've if in into is isn't it it's its itself just kind let's like made make many may me
  might more most much must mustn't my myself never no nor not now of off on once one only or
  other ought our ours ourselves out over own per same shan't she she'd she'll she's should
  shouldn't so some such than that that's the their theirs them themselves then there there's
  these they they'd they'll they're they've thing things this those through to too under until
  up upon us very was wasn't we we'd we'll we're we've were weren't what what's when when's where
  where's whether which while who who's whom whose why why's will with won't would wouldn't yet
  you you'd you'll you're you've your yours yourself yourselves`.split(/\s+/),
);

/** The words of a text, lower-cased, apostrophes kept inside words (curly ones made straight). */
export function words(text) {
  return (
    text
      .toLowerCase()
      .replace(/[\u2018\u2019]/g, "'")
      .match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? []
  );
}

/** The question's keywords: its words less stop words, possessive 's dropped, in order, once each. */
export function keywords(question) {
  const kept = [];
  for (const word of words(question)) {
    if (STOP_WORDS.has(word)) continue;
    const bare = word.replace(/'s$/, "");
    if (bare.length > 0 && !kept.includes(bare)) kept.push(bare);
  }
  return kept.join(" ");
}
