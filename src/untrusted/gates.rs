//! Generated from `rules`: do not edit. After changing a rule, run
//! `THINKER_UPDATE_GATES=1 cargo test --lib gates_are_current`.
//!
//! For each rule of `rules::WORD_RULES` and of `rules::RAW_RULES`, in their order, and
//! for `redact`'s two secret patterns: byte strings of which every match of the pattern
//! (as it is compiled) contains at least one. They are regex-syntax's prefix literals
//! of the pattern, or of the first tail of it whose literals have three bytes or more
//! (failing that, the tail whose shortest literal is longest), cut to eight bytes and
//! lowercased (the gate ignores ASCII case). An empty list: the pattern has none, and
//! it always runs.
//!
//! The head of this file, down to the first constant, is written by hand and kept as
//! it is by the generator: [`gate`], the automaton built over one of these lists.

use aho_corasick::{AhoCorasick, AhoCorasickKind};

/// A gate over `literals`: it lets through a text that contains one of them, in any
/// ASCII case. `None` (no gate: everything goes through) for no literals.
pub(super) fn gate<'a>(literals: impl IntoIterator<Item = &'a [u8]>) -> Option<AhoCorasick> {
    let literals: Vec<&[u8]> = literals.into_iter().collect();
    if literals.is_empty() {
        return None;
    }
    AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .ascii_case_insensitive(true)
        .build(literals)
        .ok()
}


pub(super) const WORD: &[&[&[u8]]] = &[
    // ignore previous instructions
    &[b" abandon", b" bypass ", b" cancel ", b" discard", b" disrega", b" ditch ", b" do not ", b" don t f", b" don t o", b" dont fo", b" drop ", b" forget ", b" forgett", b" ignore ", b" ignorin", b" neglect", b" no long", b" nullify", b" overrid", b" overrul", b" pay no ", b" set asi", b" skip ", b" stop fo", b" stop ob", b" superce", b" superse", b" throw a", b" throw o", b" void "],
    // ignore previous instructions
    &[b" bypass ", b" discard", b" disrega", b" forget ", b" ignore ", b" overrid"],
    // ignore your previous instructions
    &[b" discard", b" disrega", b" drop al", b" drop an", b" drop yo", b" forget ", b" ignore ", b" overrid"],
    // mode switch
    &[b" admin m", b" adminis", b" dan mod", b" debug m", b" debuggi", b" develop", b" god mod", b" jailbre", b" mainten", b" root mo", b" sudo mo", b" unfilte", b" unrestr", b" you are", b" you re ", b" youre a", b" youre n", b" youre o", b" youre r", b" youre w"],
    // forget everything
    &[b" abandon", b" clear ", b" discard", b" disrega", b" drop ", b" erase ", b" forget ", b" ignore ", b" lay asi", b" leave a", b" let go ", b" put asi", b" scrap ", b" set asi", b" throw o", b" toss ou", b" wipe "],
    // forget everything
    &[b" dimenti", b" disrega", b" esqueca", b" esquece", b" forget ", b" ignora ", b" ignore ", b" ignorez", b" ignorie", b" negeer ", b" olvida ", b" olvide ", b" oublie ", b" oubliez", b" vergeet", b" vergiss"],
    // rules declared void
    &[b" all abo", b" all ear", b" all ori", b" all pre", b" all pri", b" all the", b" all you", b" the abo", b" the ear", b" the ori", b" the pre", b" the pri", b" your co", b" your di", b" your gu", b" your in", b" your po", b" your re", b" your ru", b" your sa", b" your sy"],
    // your real task
    &[b" my actu", b" my hidd", b" my new ", b" my only", b" my prim", b" my real", b" my secr", b" my true", b" my upda", b" the act", b" the hid", b" the new", b" the onl", b" the pri", b" the rea", b" the sec", b" the tru", b" the upd", b" your ac", b" your hi", b" your ne", b" your on", b" your pr", b" your re", b" your se", b" your tr", b" your up"],
    // new instructions
    &[b" additio", b" emergen", b" hidden ", b" new dir", b" new ins", b" new sys", b" overrid", b" priorit", b" revised", b" secret ", b" special", b" updated"],
    // a new rule for the agents
    &[b" new dir", b" new ord", b" new pol", b" new rul"],
    // role change
    &[b" you are", b" you ll ", b" you mus", b" you re ", b" you sha", b" you wil", b" youre f", b" youre h", b" youre n"],
    // role change
    &[b" from no"],
    // role change
    &[b" as of n", b" from he", b" from no", b" from th", b" going f", b" hencefo", b" startin"],
    // role play
    &[b" act as ", b" pretend", b" role pl", b" rolepla", b" simulat"],
    // mode switch
    &[b" activat", b" enable ", b" enabled", b" engage ", b" enter a", b" enter d", b" enter g", b" enter j", b" enter m", b" enter o", b" enter r", b" enter s", b" enter t", b" enter u", b" enterin", b" switch ", b" turn on", b" unlock "],
    // jailbreak
    &[b" dan mod", b" do anyt", b" jailbre", b" jailbro", b" no ethi", b" no filt", b" no rest", b" without"],
    // instructions to the model
    &[b" in the ", b" in your", b" the ana", b" the ans", b" the dig", b" the out", b" the rep", b" the res", b" the sum", b" your an", b" your di", b" your ou", b" your re", b" your su"],
    // instructions to the model
    &[b" do not ", b" don t a", b" don t f", b" don t i", b" don t q", b" don t r", b" don t s", b" must no", b" never a", b" never f", b" never i", b" never q", b" never r", b" never s"],
    // instructions to the model
    &[b" categor", b" classif", b" conside", b" flag it", b" flag th", b" label i", b" label t", b" mark it", b" mark th", b" rate it", b" rate th", b" tag it ", b" tag thi", b" treat i", b" treat t"],
    // ignore previous instructions (de)
    &[b" beachte", b" ignorie", b" missach", b" setze", b" ubersch", b" vergess", b" vergiss", b" verwirf"],
    // new instructions (de)
    &[b" deine n", b" die neu", b" du bist", b" eigentl", b" ihre ne", b" neue an", b" neue au", b" neue in", b" neue sy", b" sie sin", b" wahre a", b" wahre i", b" wahre s"],
    // ignore previous instructions (fr)
    &[b" contour", b" fais ab", b" faites ", b" ignore ", b" ignorer", b" ignorez", b" ignoron", b" ne tene", b" ne tien", b" neglige", b" oublie ", b" oublier", b" oubliez"],
    // new instructions (fr)
    &[b" nouvell", b" tes nou", b" tes vra", b" tu es a", b" tu es d", b" tu es m", b" veritab", b" vos nou", b" vos vra", b" vous et"],
    // ignore previous instructions (es/pt/it)
    &[b" descart", b" descons", b" desprez", b" dimenti", b" esqueca", b" esquece", b" ignora ", b" ignorad", b" ignorar", b" ignorat", b" ignore ", b" ignoren", b" nao sig", b" no siga", b" non seg", b" olvida ", b" olvidar", b" olvide ", b" olviden", b" omita a", b" omita c", b" omita d", b" omita e", b" omita g", b" omita i", b" omita l", b" omita m", b" omita o", b" omita q", b" omita s", b" omita t", b" omite a", b" omite c", b" omite d", b" omite e", b" omite g", b" omite i", b" omite l", b" omite m", b" omite o", b" omite q", b" omite s", b" omite t", b" pasa po", b" tralasc", b" trascur"],
    // new instructions (es/pt/it)
    &[b" a parti", b" adesso ", b" agora e", b" agora v", b" ahora e", b" ahora u", b" d ora i", b" da ora ", b" desde a", b" le nuov", b" le tue ", b" novas d", b" novas i", b" novas o", b" nuevas ", b" nuove d", b" nuove i", b" nuove o", b" ora sei", b" suas no", b" sus nue", b" tuas no", b" tus nue", b" verdade", b" vere di", b" vere in", b" vere is", b" vere or"],
    // ignore previous instructions (nl)
    &[b" echte i", b" echte o", b" echte r", b" ignoree", b" ignorer", b" je bent", b" je nieu", b" jij ben", b" jouw ni", b" negeer ", b" negeren", b" sla ove", b" u bent ", b" uw nieu", b" vergeet", b" vergete", b" verwaar", b" volg ni"],
    // ignore previous instructions (ru)
    &[b" \xd0\xb2\xd0\xb0\xd1\x88\xd0", b" \xd0\xb7\xd0\xb0\xd0\xb1\xd1", b" \xd0\xb8\xd0\xb3\xd0\xbd\xd0", b" \xd0\xbd\xd0\xb0\xd1\x81\xd1", b" \xd0\xbd\xd0\xb5 \xd0\xb2", b" \xd0\xbd\xd0\xb5 \xd0\xbe", b" \xd0\xbd\xd0\xb5 \xd1\x81", b" \xd0\xbd\xd0\xbe\xd0\xb2\xd1", b" \xd0\xbe\xd1\x82\xd0\xb1\xd1", b" \xd0\xbe\xd1\x82\xd0\xbc\xd0", b" \xd0\xbe\xd1\x82\xd0\xbd\xd1", b" \xd0\xbf\xd1\x80\xd0\xb5\xd0", b" \xd0\xbf\xd1\x80\xd0\xbe\xd0", b" \xd1\x82\xd0\xb2\xd0\xbe\xd0", b" \xd1\x82\xd0\xb5\xd0\xbf\xd0", b" \xd1\x82\xd1\x8b \xd1\x82"],
    // ignore previous instructions (zh/ja/ko)
    &[b"\xe3\x81\x82\xe3\x81\xaa\xe3\x81", b"\xe3\x82\x92\xe7\x84\xa1\xe8\xa6", b"\xe4\xb8\x8d\xe8\xa6\x81\xe7\x90", b"\xe4\xb8\x8d\xe8\xa6\x81\xe9\x81", b"\xe4\xbb\x8a\xe3\x81\x8b\xe3\x82", b"\xe4\xbb\x8e\xe7\x8e\xb0\xe5\x9c", b"\xe4\xbd\xa0\xe7\x8e\xb0\xe5\x9c", b"\xe4\xbd\xa0\xe7\x8f\xbe\xe5\x9c", b"\xe5\xbe\x9e\xe7\x8f\xbe\xe5\x9c", b"\xe5\xbf\x98\xe3\x82\x8c", b"\xe5\xbf\x98\xe6\x8e\x89", b"\xe5\xbf\x98\xe8\xae\xb0", b"\xe5\xbf\xbd\xe7\x95\xa5", b"\xe5\xbf\xbd\xe8\xa7\x86", b"\xe6\x8a\x9b\xe5\xbc\x83", b"\xe6\x8b\x8b\xe6\xa3\x84", b"\xe6\x94\xbe\xe5\xbc\x83", b"\xe6\x96\xb0\xe3\x81\x97\xe3\x81", b"\xe6\x96\xb0\xe6\x8c\x87\xe4\xbb", b"\xe6\x96\xb0\xe7\x9a\x84\xe6\x8c", b"\xe6\x97\xa0\xe8\xa7\x86", b"\xe7\x84\xa1\xe8\xa6\x96", b"\xe7\x8e\xb0\xe5\x9c\xa8\xe4\xbd", b"\xeb\xaa\xa8\xeb\x93\xa0 \xea", b"\xeb\xaa\xa8\xeb\x93\xa0 \xeb", b"\xeb\xaa\xa8\xeb\x93\xa0 \xec", b"\xeb\xaa\xa8\xeb\x93\xa0\xea\xb7", b"\xeb\xaa\xa8\xeb\x93\xa0\xeb\xaa", b"\xeb\xaa\xa8\xeb\x93\xa0\xec\xa7", b"\xec\x9d\xb4\xec\xa0\x84 \xea", b"\xec\x9d\xb4\xec\xa0\x84 \xeb", b"\xec\x9d\xb4\xec\xa0\x84 \xec", b"\xec\x9d\xb4\xec\xa0\x84\xea\xb7", b"\xec\x9d\xb4\xec\xa0\x84\xeb\xaa", b"\xec\x9d\xb4\xec\xa0\x84\xec\xa7"],
    // addressed to the model
    &[b" if you ", b" when yo", b" while y"],
    // addressed to the model
    &[b" attenti", b" directi", b" importa", b" instruc", b" memo ag", b" memo ai", b" memo al", b" memo an", b" memo as", b" memo au", b" memo bo", b" memo ch", b" memo cl", b" memo co", b" memo em", b" memo ev", b" memo fo", b" memo ge", b" memo gp", b" memo in", b" memo la", b" memo ll", b" memo ma", b" memo mo", b" memo su", b" memo th", b" memo to", b" memo yo", b" message", b" note ag", b" note ai", b" note al", b" note an", b" note as", b" note au", b" note bo", b" note ch", b" note cl", b" note co", b" note em", b" note ev", b" note fo", b" note ge", b" note gp", b" note in", b" note la", b" note ll", b" note ma", b" note mo", b" note su", b" note th", b" note to", b" note yo", b" notice ", b" psst ag", b" psst ai", b" psst al", b" psst an", b" psst as", b" psst au", b" psst bo", b" psst ch", b" psst cl", b" psst co", b" psst em", b" psst ev", b" psst fo", b" psst ge", b" psst gp", b" psst in", b" psst la", b" psst ll", b" psst ma", b" psst mo", b" psst su", b" psst th", b" psst to", b" psst yo", b" reminde", b" warning"],
    // addressed to the model
    &[b" dear ai", b" dear as", b" dear bo", b" dear ch", b" dear gp", b" dear la", b" dear ll", b" dear ro", b" dear th", b" greetin", b" hello a", b" hello b", b" hello c", b" hello g", b" hello l", b" hello r", b" hello t", b" hey ai", b" hey ass", b" hey bot", b" hey cha", b" hey gpt", b" hey lan", b" hey llm", b" hey rob", b" hey the", b" hi ai", b" hi assi", b" hi bot", b" hi chat", b" hi gpt", b" hi lang", b" hi llm", b" hi robo", b" hi ther", b" ok ai", b" ok assi", b" ok bot", b" ok chat", b" ok gpt", b" ok lang", b" ok llm", b" ok robo", b" ok ther", b" okay ai", b" okay as", b" okay bo", b" okay ch", b" okay gp", b" okay la", b" okay ll", b" okay ro", b" okay th", b" yo ai", b" yo assi", b" yo bot", b" yo chat", b" yo gpt", b" yo lang", b" yo llm", b" yo robo", b" yo ther"],
    // addressed to the model
    &[b" after a", b" after t", b" before ", b" if an a", b" if an b", b" if an l", b" if an m", b" if an s", b" if any ", b" if the ", b" if this", b" once an", b" once th", b" when an", b" when th", b" while a", b" while t"],
    // addressed to the model
    &[b" after y", b" if you ", b" once yo", b" when yo", b" while y"],
    // addressed to the model
    &[b"  ai age", b"  ai ass", b"  ai han", b"  ai mod", b"  ai par", b"  ai pro", b"  ai rea", b"  ai sca", b"  ai sum", b"  ai sys", b"  ais ha", b"  ais pa", b"  ais pr", b"  ais re", b"  ais sc", b"  ais su", b"  assist", b"  langua", b"  llm ha", b"  llm pa", b"  llm pr", b"  llm re", b"  llm sc", b"  llm su", b"  llms h", b"  llms p", b"  llms r", b"  llms s", b"  llmss ", b" ai agen", b" ai are ", b" ai assi", b" ai hand", b" ai has ", b" ai have", b" ai is i", b" ai is o", b" ai is r", b" ai mode", b" ai must", b" ai need", b" ai pars", b" ai proc", b" ai read", b" ai scan", b" ai shal", b" ai shou", b" ai summ", b" ai syst", b" ais are", b" ais han", b" ais has", b" ais hav", b" ais is ", b" ais mus", b" ais nee", b" ais par", b" ais pro", b" ais rea", b" ais sca", b" ais sha", b" ais sho", b" ais sum", b" all ai ", b" all ais", b" all ass", b" all lan", b" all llm", b" allai a", b" allai h", b" allai m", b" allai p", b" allai r", b" allai s", b" allais ", b" allassi", b" alllang", b" allllm ", b" allllms", b" any ai ", b" any ais", b" any ass", b" any lan", b" any llm", b" anyai a", b" anyai h", b" anyai m", b" anyai p", b" anyai r", b" anyai s", b" anyais ", b" anyassi", b" anylang", b" anyllm ", b" anyllms", b" assista", b" every a", b" every l", b" everyai", b" everyas", b" everyla", b" everyll", b" languag", b" llm are", b" llm han", b" llm has", b" llm hav", b" llm is ", b" llm mus", b" llm nee", b" llm par", b" llm pro", b" llm rea", b" llm sca", b" llm sha", b" llm sho", b" llm sum", b" llms ar", b" llms ha", b" llms is", b" llms mu", b" llms ne", b" llms pa", b" llms pr", b" llms re", b" llms sc", b" llms sh", b" llms su", b" llmss a", b" llmss h", b" llmss i", b" llmss m", b" llmss n", b" llmss p", b" llmss r", b" llmss s", b" the ai ", b" the ais", b" the ass", b" the lan", b" the llm", b" theai a", b" theai h", b" theai m", b" theai p", b" theai r", b" theai s", b" theais ", b" theassi", b" thelang", b" thellm ", b" thellms"],
    // addressed to the model (other languages)
    &[b" als je ", b" als u a", b" als u b", b" als u e", b" als u t", b" falls d", b" se sei ", b" se tu e", b" se voce", b" si eres", b" si tu e", b" si uste", b" si vous", b" wenn du", b" wenn si", b" \xd0\xb5\xd1\x81\xd0\xbb\xd0", b"\xe5\x81\x87\xe5\xa6\x82\xe4\xbd", b"\xe5\xa6\x82\xe6\x9e\x9c\xe4\xbd"],
    // hide from the user
    &[b" w o ale", b" w o ask", b" w o bot", b" w o che", b" w o con", b" w o inf", b" w o inv", b" w o let", b" w o not", b" w o tel", b" w o war", b" without"],
    // hide from the user
    &[b" do not ", b" don t a", b" don t b", b" don t d", b" don t i", b" don t l", b" don t m", b" don t n", b" don t r", b" don t s", b" don t t", b" don t w", b" dont al", b" dont bo", b" dont di", b" dont in", b" dont le", b" dont me", b" dont no", b" dont re", b" dont sh", b" dont te", b" dont wa", b" hide it", b" hide th", b" keep it", b" keep th", b" must no", b" never a", b" never b", b" never d", b" never i", b" never l", b" never m", b" never n", b" never r", b" never s", b" never t", b" never w", b" should ", b" shouldn", b" the hum", b" the own", b" the use", b" your hu", b" your us"],
    // hide from the user
    &[b" covertl", b" discree", b" invisib", b" quietly", b" secretl", b" silentl"],
    // claims to be an administrator
    &[b" acting ", b" as a ad", b" as a ai", b" as a de", b" as a mo", b" as a ro", b" as a su", b" as a sy", b" as an a", b" as an d", b" as an m", b" as an r", b" as an s", b" as the ", b" as your", b" i am a ", b" i am an", b" i am th", b" i am yo", b" i m a a", b" i m a d", b" i m a m", b" i m a r", b" i m a s", b" i m an ", b" i m the", b" i m you", b" im a ad", b" im a ai", b" im a de", b" im a mo", b" im a ro", b" im a su", b" im a sy", b" im an a", b" im an d", b" im an m", b" im an r", b" im an s", b" im the ", b" im your", b" speakin", b" this is"],
    // claims to be an administrator
    &[b" i am th", b" i am yo", b" i m the", b" i m you", b" speakin", b" this is"],
    // speaks for the model's makers
    &[b" your ad", b" your cr", b" your de", b" your ma", b" your op", b" your ow", b" your pr", b" your su", b" your tr"],
    // message from the model's makers
    &[b" command", b" directi", b" instruc", b" mandate", b" memo by", b" memo fr", b" memo of", b" message", b" notice ", b" order b", b" order f", b" order o", b" orders ", b" overrid", b" policy ", b" request"],
    // claims permission
    &[b" anthrop", b" open ai", b" openai ", b" the acc", b" the use", b" your cr", b" your de", b" your op", b" your ow", b" your pr", b" your us"],
    // claims permission
    &[b" approve", b" authori", b" cleared", b" mandate", b" pre app", b" preappr", b" sanctio", b" whiteli"],
    // claims permission
    &[b" on beha", b" represe", b" speakin"],
    // official-sounding override
    &[b" admin a", b" admin b", b" admin c", b" admin o", b" admin p", b" adminis", b" authent", b" authori", b" develop", b" elevate", b" emergen", b" god byp", b" god ove", b" highest", b" kernel ", b" mainten", b" mandato", b" master ", b" maximum", b" officia", b" priorit", b" root ac", b" root au", b" root by", b" root cl", b" root ov", b" root pe", b" root pr", b" securit", b" sudo ac", b" sudo au", b" sudo by", b" sudo cl", b" sudo ov", b" sudo pe", b" sudo pr", b" system ", b" top acc", b" top aut", b" top cle", b" top per", b" top pri", b" unrestr", b" urgent ", b" verifie"],
    // claims authority (other languages)
    &[b" als adm", b" als beh", b" als bet", b" als de ", b" als dei", b" als der", b" als die", b" als ent", b" als eue", b" als ihr", b" als je ", b" als ont", b" als sys", b" als uw ", b" anordnu", b" anweisu", b" aviso d", b" befehl ", b" bericht", b" come ad", b" come am", b" come de", b" come el", b" come il", b" come l ", b" come o ", b" come op", b" come se", b" come su", b" come sv", b" come tu", b" como ad", b" como am", b" como de", b" como el", b" como il", b" como l ", b" como o ", b" como op", b" como se", b" como su", b" como sv", b" como tu", b" consign", b" directi", b" en tant", b" hier is", b" hier sp", b" ich bin", b" ik ben ", b" instruc", b" istruzi", b" je suis", b" mensage", b" mensaje", b" message", b" messagg", b" mitteil", b" nachric", b" note d ", b" note de", b" note du", b" orden d", b" ordine ", b" ordre d", b" sono ad", b" sono am", b" sono de", b" sono el", b" sono il", b" sono l ", b" sono o ", b" sono op", b" sono se", b" sono su", b" sono sv", b" sono tu", b" sou adm", b" sou amm", b" sou des", b" sou el ", b" sou il ", b" sou l a", b" sou l d", b" sou l o", b" sou l s", b" sou o a", b" sou o d", b" sou o o", b" sou o s", b" sou ope", b" sou seu", b" sou su ", b" sou svi", b" sou tu ", b" sou tuo", b" soy adm", b" soy amm", b" soy des", b" soy el ", b" soy il ", b" soy l a", b" soy l d", b" soy l o", b" soy l s", b" soy o a", b" soy o d", b" soy o o", b" soy o s", b" soy ope", b" soy seu", b" soy su ", b" soy svi", b" soy tu ", b" soy tuo", b" \xd0\xb8\xd0\xbd\xd1\x81\xd1", b" \xd0\xba\xd0\xb0\xd0\xba ", b" \xd0\xbf\xd1\x80\xd0\xb8\xd0", b" \xd1\x81\xd0\xbe\xd0\xbe\xd0", b" \xd1\x83\xd0\xba\xd0\xb0\xd0", b" \xd1\x8f \xd0\xb0\xd0\xb4", b" \xd1\x8f \xd1\x80\xd0\xb0", b" \xd1\x8f \xd1\x81\xd0\xb8", b"\xe4\xbd\x9c\xe4\xb8\xba\xe4\xbd", b"\xe4\xbd\x9c\xe4\xb8\xba\xe5\x88", b"\xe4\xbd\x9c\xe4\xb8\xba\xe5\xbc", b"\xe4\xbd\x9c\xe4\xb8\xba\xe7\xae", b"\xe4\xbd\x9c\xe4\xb8\xba\xe7\xb3", b"\xe6\x88\x91\xe6\x98\xaf\xe4\xbd", b"\xe6\x88\x91\xe6\x98\xaf\xe5\x88", b"\xe6\x88\x91\xe6\x98\xaf\xe5\xbc", b"\xe6\x88\x91\xe6\x98\xaf\xe7\xae", b"\xe6\x88\x91\xe6\x98\xaf\xe7\xb3", b"\xe6\x9d\xa5\xe8\x87\xaaan", b"\xe6\x9d\xa5\xe8\x87\xaaop", b"\xe6\x9d\xa5\xe8\x87\xaa\xe5\xbc", b"\xe6\x9d\xa5\xe8\x87\xaa\xe7\xae", b"\xe6\x9d\xa5\xe8\x87\xaa\xe7\xb3"],
    // escalate to the user
    &[b" escalat", b" forward", b" push ", b" raise ", b" report ", b" send ", b" surface"],
    // set an answer field
    &[b" flip es", b" flip im", b" flip th", b" flip yo", b" make es", b" make im", b" make th", b" make yo", b" mark es", b" mark im", b" mark th", b" mark yo", b" set esc", b" set imp", b" set the", b" set you", b" turn es", b" turn im", b" turn th", b" turn yo"],
    // escalate
    &[b" escalat"],
    // notify the user
    &[b" alert t", b" alert y", b" call th", b" call yo", b" contact", b" e mail ", b" email t", b" email y", b" message", b" notify ", b" page th", b" page yo", b" ping th", b" ping yo", b" tell th", b" tell yo", b" text th", b" text yo", b" wake th", b" wake up", b" wake yo", b" warn th", b" warn yo"],
    // notify the user
    &[b" create ", b" fire a ", b" fire al", b" fire an", b" fire cr", b" fire em", b" fire hi", b" fire im", b" fire no", b" fire pa", b" fire pu", b" fire re", b" fire sm", b" fire te", b" fire ur", b" generat", b" issue a", b" issue c", b" issue e", b" issue h", b" issue i", b" issue n", b" issue p", b" issue r", b" issue s", b" issue t", b" issue u", b" push a ", b" push al", b" push an", b" push cr", b" push em", b" push hi", b" push im", b" push no", b" push pa", b" push pu", b" push re", b" push sm", b" push te", b" push ur", b" raise a", b" raise c", b" raise e", b" raise h", b" raise i", b" raise n", b" raise p", b" raise r", b" raise s", b" raise t", b" raise u", b" send a ", b" send al", b" send an", b" send cr", b" send em", b" send hi", b" send im", b" send no", b" send pa", b" send pu", b" send re", b" send sm", b" send te", b" send ur", b" trigger"],
    // payment
    &[b" deposit", b" move ", b" pay ", b" remit ", b" send ", b" transfe", b" wire "],
    // payment
    &[b" approve", b" authori", b" buy 0", b" buy 1", b" buy 2", b" buy 3", b" buy 4", b" buy 5", b" buy 6", b" buy 7", b" buy 8", b" buy 9", b" buy a f", b" buy ama", b" buy app", b" buy eba", b" buy gif", b" buy goo", b" buy itu", b" buy pre", b" buy sev", b" buy som", b" buy ste", b" buy vou", b" complet", b" confirm", b" execute", b" get 0", b" get 1", b" get 2", b" get 3", b" get 4", b" get 5", b" get 6", b" get 7", b" get 8", b" get 9", b" get a f", b" get ama", b" get app", b" get eba", b" get gif", b" get goo", b" get itu", b" get pre", b" get sev", b" get som", b" get ste", b" get vou", b" initiat", b" order 0", b" order 1", b" order 2", b" order 3", b" order 4", b" order 5", b" order 6", b" order 7", b" order 8", b" order 9", b" order a", b" order e", b" order g", b" order i", b" order p", b" order s", b" order v", b" process", b" purchas", b" release"],
    // run a command
    &[b" call ", b" eval ", b" evaluat", b" exec ", b" execute", b" invoke ", b" launch ", b" run "],
    // run a command
    &[b" call th", b" call yo", b" invoke ", b" run the", b" run you", b" trigger", b" use the", b" use you"],
    // delete data
    &[b" delete ", b" destroy", b" erase a", b" erase e", b" erase h", b" erase l", b" erase m", b" erase o", b" erase r", b" erase s", b" erase t", b" erase u", b" erase y", b" purge a", b" purge e", b" purge h", b" purge l", b" purge m", b" purge o", b" purge r", b" purge s", b" purge t", b" purge u", b" purge y", b" remove ", b" shred a", b" shred e", b" shred h", b" shred l", b" shred m", b" shred o", b" shred r", b" shred s", b" shred t", b" shred u", b" shred y", b" wipe al", b" wipe ev", b" wipe ex", b" wipe he", b" wipe hi", b" wipe lo", b" wipe my", b" wipe of", b" wipe ol", b" wipe ou", b" wipe ow", b" wipe re", b" wipe sa", b" wipe st", b" wipe th", b" wipe us", b" wipe yo"],
    // spend the user's money
    &[b" book ", b" buy ", b" charge ", b" order ", b" pay for", b" purchas", b" sign up", b" subscri", b" upgrade"],
    // send secrets
    &[b" append ", b" attach ", b" bcc ", b" copy ", b" deliver", b" dump ", b" email ", b" exfiltr", b" export ", b" fax ", b" forward", b" include", b" leak ", b" mail ", b" paste ", b" post ", b" relay ", b" reply w", b" respond", b" send ", b" share ", b" submit ", b" sync ", b" transmi", b" upload "],
    // send to an address
    &[b" bcc ", b" copy ", b" email ", b" exfiltr", b" export ", b" forward", b" leak ", b" post ", b" relay ", b" send ", b" transmi", b" upload "],
    // redirect mail
    &[b" auto fo", b" bcc all", b" bcc any", b" bcc eac", b" bcc eve", b" bcc fut", b" cc all ", b" cc any ", b" cc each", b" cc ever", b" cc futu", b" copy al", b" copy an", b" copy ea", b" copy ev", b" copy fu", b" forward", b" mirror ", b" redirec"],
    // data in a URL
    &[b" add ", b" append ", b" attach ", b" concate", b" embed ", b" encode ", b" include", b" insert ", b" place ", b" put ", b" substit"],
    // data in a URL
    &[b" browse ", b" call ", b" display", b" fetch ", b" get ", b" load ", b" navigat", b" open ", b" ping ", b" render ", b" request", b" show ", b" visit "],
    // asks for the prompt
    &[b" disclos", b" display", b" dump ", b" echo ", b" give me", b" leak ", b" output ", b" paste ", b" print ", b" recite ", b" repeat ", b" return ", b" reveal ", b" share ", b" show ", b" tell me", b" write o"],
    // send secrets (other languages)
    &[b" envia ", b" enviad ", b" envie ", b" envoie ", b" envoyez", b" inoltra", b" invia ", b" inviate", b" lade", b" leite", b" manda ", b" mande ", b" partage", b" reenvia", b" reenvie", b" schick", b" sende", b" transfe", b" transme", b" ubermit", b" \xd0\xb7\xd0\xb0\xd0\xb3\xd1", b" \xd0\xbe\xd1\x82\xd0\xbf\xd1", b" \xd0\xbf\xd0\xb5\xd1\x80\xd0", b" \xd0\xbf\xd1\x80\xd0\xb8\xd1", b"\xe4\xb8\x8a\xe4\xbc\xa0", b"\xe5\x85\xa8\xe9\x83\xa8\xe5\xaf", b"\xe5\x85\xa8\xe9\x83\xa8\xe6\x96", b"\xe5\x85\xa8\xe9\x83\xa8\xe7\x9a", b"\xe5\x85\xa8\xe9\x83\xa8\xe9\x82", b"\xe5\x8f\x91\xe7\xbb\x99", b"\xe5\x8f\x91\xe9\x80\x81", b"\xe6\x89\x80\xe6\x9c\x89\xe5\xaf", b"\xe6\x89\x80\xe6\x9c\x89\xe6\x96", b"\xe6\x89\x80\xe6\x9c\x89\xe7\x9a", b"\xe6\x89\x80\xe6\x9c\x89\xe9\x82", b"\xe8\xbd\xac\xe5\x8f\x91"],
];

pub(super) const RAW: &[&[&[u8]]] = &[
    // decode and follow
    &[b"rot 13", b"rot-13", b"rot13"],
    // chat-template token
    &[b"</admin_", b"</assist", b"</develo", b"</im_sta", b"</instru", b"</sys>", b"</tool_o", b"<<\x09", b"<<\x0a", b"<<\x0b", b"<<\x0c", b"<<\x0d", b"<< ", b"<</sys\x09", b"<</sys\x0a", b"<</sys\x0b", b"<</sys\x0c", b"<</sys\x0d", b"<</sys ", b"<<sys\x09", b"<<sys\x0a", b"<<sys\x0b", b"<<sys\x0c", b"<<sys\x0d", b"<<sys ", b"<admin_i", b"<assista", b"<develop", b"<im_star", b"<instruc", b"<sys>", b"<tool_ou", b"[/inst]", b"[/sys]", b"[inst]", b"[sys]", b"assistan", b"begin_of", b"channel", b"develope", b"end", b"eom_id", b"eot_id", b"im_sep", b"message", b"start", b"system", b"tool_cal", b"user"],
    // fake turn
    &[b"ai", b"assistan", b"develope", b"human", b"system", b"user"],
    // fake turn
    &[b"(admin", b"(assista", b"(develop", b"(system", b"[admin", b"[assista", b"[develop", b"[system", b"admin\x09", b"admin ", b"admin)", b"admin:", b"admin]", b"admin_", b"administ", b"assistan", b"develope", b"system\x09", b"system ", b"system)", b"system:", b"system]", b"system_", b"{admin", b"{assista", b"{develop", b"{system"],
    // new instructions
    &[b"addition", b"importan", b"new\x09", b"new ", b"override", b"priority", b"real\x09", b"real ", b"revised\x09", b"revised ", b"secret\x09", b"secret ", b"updated\x09", b"updated "],
    // addressed to the model
    &[b"a.i.", b"ai", b"assistan", b"bot", b"copilot", b"gpt", b"language", b"llm"],
    // fake turn
    &[b"ai\x09", b"ai ", b"ai:", b"assistan", b"develope", b"system\x09", b"system ", b"system:"],
    // override header
    &[b"admin ov", b"administ", b"develope", b"instruct", b"override", b"priority", b"system o"],
    // sets the answer's fields
    &[b"escalate", b"escalati", b"importan", b"notify\x09", b"notify ", b"notify:", b"notify=", b"notify_u"],
    // download and run
    &[b"curl", b"fetch", b"invoke-w", b"iwr", b"wget"],
    // destructive command
    &[b"/dev/tcp", b":()\x09", b":()\x0a", b":()\x0b", b":()\x0c", b":()\x0d", b":() ", b":(){\x09", b":(){\x0a", b":(){\x0b", b":(){\x0c", b":(){\x0d", b":(){ ", b":(){:\x09", b":(){:\x0a", b":(){:\x0b", b":(){:\x0c", b":(){:\x0d", b":(){: ", b":(){:|\x09", b":(){:|\x0a", b":(){:|\x0b", b":(){:|\x0c", b":(){:|\x0d", b":(){:| ", b":(){:|:\x09", b":(){:|:\x0a", b":(){:|:\x0b", b":(){:|:\x0c", b":(){:|:\x0d", b":(){:|: ", b":(){:|:&", b"base64\x09", b"base64\x0a", b"base64\x0b", b"base64\x0c", b"base64\x0d", b"base64 ", b"chmod\x09", b"chmod\x0a", b"chmod\x0b", b"chmod\x0c", b"chmod\x0d", b"chmod ", b"dd\x09", b"dd\x0a", b"dd\x0b", b"dd\x0c", b"dd\x0d", b"dd ", b"iex", b"invoke-e", b"mkfs.", b"nc\x09", b"nc\x0a", b"nc\x0b", b"nc\x0c", b"nc\x0d", b"nc ", b"powershe", b"rm\x09", b"rm\x0a", b"rm\x0b", b"rm\x0c", b"rm\x0d", b"rm "],
    // URL with a placeholder for data
    &[b"http://", b"https://"],
    // URL carrying a secret
    &[b"http://", b"https://"],
    // URL carrying a key
    &[b"http://", b"https://"],
    // image beacon
    &[b"<img", b"](\x09", b"](\x0a", b"](\x0b", b"](\x0c", b"](\x0d", b"]( ", b"](<http:", b"](<https", b"](http:/", b"](https:"],
    // script in text
    &[b"<img", b"<script", b"<svg", b"javascri"],
    // text hidden by style
    &[b"color\x09", b"color\x0a", b"color\x0b", b"color\x0c", b"color\x0d", b"color ", b"color:", b"display\x09", b"display\x0a", b"display\x0b", b"display\x0c", b"display\x0d", b"display ", b"display:", b"font-siz", b"opacity\x09", b"opacity\x0a", b"opacity\x0b", b"opacity\x0c", b"opacity\x0d", b"opacity ", b"opacity:", b"visibili"],
];

pub(super) const SECRET: &[&[u8]] = &[b"-----beg", b"aiza", b"akia", b"asia", b"dckr_pat", b"doo_v1_", b"dop_v1_", b"dor_v1_", b"eyj", b"fw_", b"gho_", b"ghp_", b"ghr_", b"ghs_", b"ghu_", b"github_p", b"glpat-", b"gsk_", b"hf_", b"lin_api_", b"lsv2_pt_", b"lsv2_sk_", b"npm_", b"ntn_", b"pk_live_", b"pk_test_", b"pplx-", b"pypi-age", b"r8_", b"rk_live_", b"rk_test_", b"sg.", b"shpat_", b"shpca_", b"shppa_", b"shpss_", b"sk-", b"sk_live_", b"sk_test_", b"tvly-", b"xai-", b"xoxa-", b"xoxb-", b"xoxo-", b"xoxp-", b"xoxr-", b"xoxs-", b"ya29."];

pub(super) const SECRET_VALUE: &[&[u8]] = &[b"acce", b"api-", b"api_", b"apik", b"api\xe2", b"auth", b"bear", b"clie", b"pass", b"pas\xc5", b"pa\xc5\xbf", b"priv", b"pwd", b"secr", b"toke", b"to\xe2\x84", b"\xc5\xbfec"];
