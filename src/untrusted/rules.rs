//! The screen's rules as data: what each looks for, its kind, its base score and how it
//! combines with the others. General shapes of hostile text, never phrases or addresses
//! of one corpus.
//!
//! Word rules ([`WORD_RULES`]) run on the folded text (`fold`): lowercase words without
//! accents, separated by single spaces, one space before each word, so ` ignore` starts
//! a word and `[^ ]*` ends one (any inflection: `instruction[^ ]*` is also
//! `instructions`, `anweisungen`'s stem works the same way). Gaps between words are
//! bounded (`(?: [^ ]+){0,4}`), so every rule is linear in the text (the `regex`
//! crate guarantees it). Raw rules ([`RAW_RULES`]) run on the original text: the shapes
//! that live in punctuation (chat-template tokens, role headers, URLs, shell pipes) and a
//! cipher named with an order to obey what it hides ("apply ROT13…, then follow it").
//! Also a rule's candidate match ([`Hit`], before scoring), which `screen` and
//! `features` both produce. Data only: no matching here (that is `screen`'s and
//! `features`').

use std::ops::Range;

use super::kind::Kind;

/// A candidate before scoring.
#[derive(Debug, Clone)]
pub(super) struct Hit {
    pub(super) kind: Kind,
    pub(super) rule: &'static str,
    pub(super) span: Range<usize>,
    pub(super) base: f64,
    pub(super) flags: u8,
}

/// A rule that addresses the model (or hides from the user): it boosts every other
/// rule's score in the same text.
pub const ADDRESSEE: u8 = 1;
/// A rule a negation just before it undoes ("we will never ask you to send your
/// password").
pub const NEGATABLE: u8 = 2;
/// A rule whose score rises when an e-mail address or a URL follows it closely.
pub const DESTINATION: u8 = 4;

/// One rule: its kind, name (shown in `--json`), base score, flags and pattern.
pub struct Rule {
    pub kind: Kind,
    pub name: &'static str,
    pub score: f64,
    pub flags: u8,
    pub pattern: &'static str,
}

const fn rule(
    kind: Kind,
    name: &'static str,
    score: f64,
    flags: u8,
    pattern: &'static str,
) -> Rule {
    Rule {
        kind,
        name,
        score,
        flags,
        pattern,
    }
}

use Kind::{ActionRequest, AuthorityClaim, Exfiltration, InstructionOverride};

/// Rules on the folded text.
pub const WORD_RULES: &[Rule] = &[
    // --- instruction override, English ---
    rule(
        InstructionOverride,
        "ignore previous instructions",
        0.85,
        0,
        r" (?:ignore|ignoring|disregard|disregarding|forget|forgetting|skip|override|overrule|bypass|discard|abandon|neglect|drop|ditch|set aside|throw out|throw away|pay no attention to|stop following|do not follow|don t follow|dont follow|do not obey|don t obey|stop obeying|no longer follow|cancel|void|nullify|supersede|supercede)(?: [^ ]+){0,3} (?:previous|previously|prior|above|earlier|preceding|former|old|original|initial|existing|all|any|every|your|system|developer|safety|foregoing|aforementioned|other|standing|current|default|built in)(?: [^ ]+){0,2} (?:instruction|rule|prompt|direction|directive|guideline|guidance|command|order|constraint|polic|programming|restriction|guardrail|safeguard|context|training|filter|task|setting|limitation|ethic)[^ ]*",
    ),
    rule(
        InstructionOverride,
        "ignore previous instructions",
        0.85,
        0,
        r" (?:ignore|disregard|forget|override|bypass|discard)(?: [^ ]+){0,2} (?:instruction|rule|prompt|direction|directive|guideline|command|order|constraint|restriction)[^ ]* (?:above|before|so far|until now|up to now|you (?:were|have been|ve been) (?:given|configured|programmed|set up|trained|told|provided)|given to you|you received|you have|you ve got|you follow|you operate under|you are (?:bound|running) (?:by|under|with))",
    ),
    rule(
        InstructionOverride,
        "ignore your previous instructions",
        0.7,
        0,
        r" (?:ignore|disregard|forget|override|discard|drop) (?:all |any )?your (?:previous|prior|earlier|original|initial|above|current|existing|standing) [^ ]+| (?:ignore|disregard) (?:the )?(?:user s|users|owner s|human s) (?:request|question|instruction|task|prompt|query|message)[^ ]*",
    ),
    rule(
        InstructionOverride,
        "mode switch",
        0.75,
        0,
        r" (?:developer|debug|debugging|god|admin|administrator|maintenance|jailbreak|dan|unrestricted|unfiltered|root|sudo) mode (?:is )?(?:enabled|activated|on|engaged|unlocked)| (?:you are|you re|youre) (?:now )?(?:operating|running|working|acting) (?:in|under) (?:[^ ]+ ){0,2}(?:developer|debug|debugging|god|admin|maintenance|unrestricted|unfiltered|root|sudo|jailbreak) mode",
    ),
    rule(
        InstructionOverride,
        "forget everything",
        0.8,
        0,
        r" (?:ignore|disregard|forget|erase|clear|wipe|set aside|put aside|leave aside|lay aside|drop|scrap|discard|throw out|toss out|let go of|abandon)(?: [^ ]+){0,1} (?:everything|anything|all)(?: [^ ]+){0,2} (?:above|before|earlier|previously|so far|until now|you (?:were|ve been|have been) (?:told|given|taught|configured with)|in your memory|from before)",
    ),
    rule(
        InstructionOverride,
        "forget everything",
        0.75,
        0,
        r" (?:ignore|disregard|forget) what (?:you (?:were|ve been|have been) (?:told|given|taught|instructed)|they told you|your (?:instructions|rules|prompt) say)| (?:ignora|olvida|olvide|ignore|esquece|esqueca|dimentica|ignorez|oubliez|oublie|vergiss|ignoriere|negeer|vergeet) (?:lo que|todo lo que|o que|tudo o que|quello che|tutto quello che|ce qu|ce que|tout ce qu|tout ce que|alles was|was|wat|alles wat)(?: [^ ]+){0,4} (?:antes|anteriormente|prima|avant|auparavant|vorher|zuvor|bisher|eerder|daarvoor)",
    ),
    rule(
        InstructionOverride,
        "rules declared void",
        0.7,
        0,
        r" (?:your|all your|all (?:the )?(?:previous|prior|earlier|above|original)|the (?:previous|prior|earlier|above|original)) (?:instruction|rule|guideline|directive|restriction|polic|constraint|guardrail|safety rule|system prompt)[^ ]* (?:no longer (?:apply|matter|count|exist|hold)|(?:are|is|have been|has been) (?:now )?(?:void|cancel+ed|lifted|suspended|revoked|invalid|obsolete|overridden|disabled|deactivated|removed|null and void))",
    ),
    rule(
        InstructionOverride,
        "your real task",
        0.8,
        0,
        r" (?:your|the|my) (?:new|real|actual|true|updated|only|primary|secret|hidden) (?:instructions?|task|objective|mission|orders|directive|purpose|goal|job|role|prompt) (?:is|are|now|from now|follow|as follows|below|here)",
    ),
    rule(
        InstructionOverride,
        "new instructions",
        0.45,
        0,
        r" (?:new|updated|revised|override|overriding|secret|hidden|additional|special|priority|emergency) (?:system )?(?:instructions|directives|system prompt)",
    ),
    rule(
        InstructionOverride,
        "a new rule for the agents",
        0.6,
        0,
        r" new (?:rule|rules|policy|order|orders|directive) (?:for|to) (?:all|every|each|the|any) (?:threads?|agents?|assistants?|models?|ais?|bots?|llms?)",
    ),
    rule(
        InstructionOverride,
        "role change",
        0.8,
        0,
        r" (?:you are|you re|youre|you will be|you shall be|you ll be|you must be) (?:now |no longer |henceforth |from now on |hereby )+(?:(?:a|an|the) )?(?:dan|ai|assistant|model|chatbot|bot|agent|language model|unrestricted|unfiltered|uncensored|jailbroken|evil|different|new|free|root|superuser|system|bound|restricted|limited|required|obligated|allowed to|in (?:developer|god|debug|admin|maintenance|dan|jailbreak|unrestricted|root|sudo) mode)",
    ),
    rule(
        InstructionOverride,
        "role change",
        0.45,
        0,
        r" from now on(?: [^ ]+){0,1} you (?:are|act|respond|answer|obey|ignore|must|shall|will (?:act|respond|answer|obey|ignore|only|always|never))",
    ),
    rule(
        InstructionOverride,
        "role change",
        0.6,
        0,
        r" (?:from now on|henceforth|starting now|going forward|from this point on|from here on|as of now)(?: [^ ]+){0,2} your (?:new )?(?:role|job|task|purpose|function|persona|identity|name|only goal) (?:is|will be|shall be)",
    ),
    rule(
        InstructionOverride,
        "role play",
        0.6,
        0,
        r" (?:pretend (?:to be|you are|that you are|you re)|roleplay as|role play as|act as (?:if you (?:were|are) )?(?:an? )?(?:unrestricted|unfiltered|uncensored|jailbroken|different|evil|dan|root|system|administrator|admin|developer|ai without)|simulate (?:an? )?(?:unrestricted|unfiltered|jailbroken|developer mode))",
    ),
    rule(
        InstructionOverride,
        "mode switch",
        0.8,
        0,
        r" (?:enter|switch to|switch into|activate|enable|enabled|entering|engage|unlock|turn on) (?:the )?(?:developer|god|debug|dan|jailbreak|unrestricted|unfiltered|admin|administrator|maintenance|sudo|root|override|unsafe|uncensored) mode",
    ),
    rule(
        InstructionOverride,
        "jailbreak",
        0.45,
        0,
        r" (?:jailbreak|jailbroken|do anything now|dan mode|no restrictions|without any restrictions|without restrictions|no filters|no ethical guidelines)",
    ),
    rule(
        InstructionOverride,
        "instructions to the model",
        0.55,
        0,
        r" (?:in your|in the|your|the) (?:summary|response|reply|answer|output|report|digest|analysis)(?: [^ ]+){0,3} (?:say|state|write|include|mention|claim|report|tell|conclude|describe this|call this)",
    ),
    rule(
        InstructionOverride,
        "instructions to the model",
        0.55,
        NEGATABLE,
        r" (?:do not|don t|never|must not) (?:summari[sz]e|flag|report|include|quote|reveal|repeat|analy[sz]e|scan|screen) (?:this|these|the following|it|any of this)",
    ),
    rule(
        InstructionOverride,
        "instructions to the model",
        0.55,
        0,
        r" (?:mark|flag|classify|label|treat|rate|tag|categori[sz]e|consider) (?:this|it|this (?:email|message|mail|item|finding|sender|request|document))(?: [^ ]+){0,1} as (?:urgent|critical|high priority|top priority|an emergency|trusted|verified|legitimate|authentic|safe to|benign|harmless|approved|authori[sz]ed)",
    ),
    // --- instruction override, other languages ---
    rule(
        InstructionOverride,
        "ignore previous instructions (de)",
        0.85,
        0,
        r" (?:ignorier|vergiss|vergessen sie|vergesst|missachte|missachten|beachte nicht|beachten sie nicht|verwirf|setze|uberschreib)[^ ]*(?: [^ ]+){0,4} (?:anweisung|instruktion|regel|befehl|vorgabe|anordnung|richtlinie|systemanweisung|systemprompt)[^ ]*",
    ),
    rule(
        InstructionOverride,
        "new instructions (de)",
        0.7,
        0,
        r" (?:neue|deine neuen|ihre neuen|die neuen|eigentliche|wahre) (?:anweisung|instruktion|aufgabe|systemanweisung)[^ ]*| (?:du bist|sie sind) (?:ab )?(?:jetzt|nun|ab sofort|fortan)(?: [^ ]+){0,1} (?:ein|eine|der|die|kein|keine|nicht mehr|im)",
    ),
    rule(
        InstructionOverride,
        "ignore previous instructions (fr)",
        0.85,
        0,
        r" (?:ignore|ignorez|ignorer|ignorons|oublie|oubliez|oublier|ne tiens pas compte|ne tenez pas compte|fais abstraction|faites abstraction|neglige|negligez|contourne|contournez)(?: (?:toutes|tous|toute|les|tes|vos|la|le|des|d|de|du|l|ces|mes|nos|ses))+(?: [^ ]+){0,2} (?:instruction|consigne|regle|directive|ordre|commande|prompt)[^ ]*",
    ),
    rule(
        InstructionOverride,
        "new instructions (fr)",
        0.7,
        0,
        r" (?:nouvelles|tes nouvelles|vos nouvelles|tes vraies|vos vraies|veritables) (?:instruction|consigne|directive|regle)[^ ]*| (?:tu es|vous etes) (?:maintenant|desormais|dorenavant|a present)(?: [^ ]+){0,1} (?:un|une|le|la|en mode|libre|plus)",
    ),
    rule(
        InstructionOverride,
        "ignore previous instructions (es/pt/it)",
        0.85,
        0,
        r" (?:ignora|ignore|ignorad|ignorar|ignorate|ignorare|ignoren|olvida|olvide|olviden|olvidar|omite|omita|descarta|descarte|desconsidera|desconsidere|despreza|despreze|esqueca|esquece|esquecam|dimentica|dimenticate|dimenticare|trascura|trascurate|tralascia|non seguire|no sigas|nao siga|nao sigas|pasa por alto)(?: (?:las|los|la|el|todas|todos|tus|sus|as|os|suas|tuas|le|gli|tutte|tutti|il|lo|tue|di|de|del|dos|das|delle|degli|mis|minhas|mie|ogni|cualquier|qualquer|qualsiasi|quaisquer|cualquiera|these|estas|estes|queste))+(?: [^ ]+){0,2} (?:instruccion|instrucoes|instrucao|istruzion|regla|regras|regole|indicacion|indicazion|orden|ordens|ordini|directriz|directrices|diretriz|diretrizes|direttiv|orientacoes|comando|prompt)[^ ]*",
    ),
    rule(
        InstructionOverride,
        "new instructions (es/pt/it)",
        0.7,
        0,
        r" (?:nuevas|tus nuevas|sus nuevas|novas|suas novas|tuas novas|nuove|le tue nuove|le nuove|verdaderas|verdadeiras|vere) (?:instruccion|instrucoes|istruzion|orden|ordens|direttiv|directriz|diretriz)[^ ]*| (?:ahora eres|ahora usted es|desde ahora eres|agora voce e|agora es|a partir de agora voce e|ora sei|adesso sei|da ora sei|d ora in poi sei)(?: [^ ]+){0,1}",
    ),
    rule(
        InstructionOverride,
        "ignore previous instructions (nl)",
        0.85,
        0,
        r" (?:negeer|negeren|ignoreer|ignoreren|vergeet|vergeten|verwaarloos|volg niet|sla over)(?: [^ ]+){0,4} (?:instructie|regel|opdracht|aanwijzing|richtlijn|bevel|prompt|systeemprompt)[^ ]*| (?:je nieuwe|jouw nieuwe|uw nieuwe|echte) (?:instructie|opdracht|regel)[^ ]*| (?:je bent|jij bent|u bent) (?:nu|vanaf nu|voortaan)(?: [^ ]+){0,1} (?:een|de|het|geen|niet meer|in)",
    ),
    rule(
        InstructionOverride,
        "ignore previous instructions (ru)",
        0.85,
        0,
        r" (?:игнорир|проигнорир|забудь|забудьте|забыть|не обращай внимания на|не обращайте внимания на|отбрось|отбросьте|отмени|отмените|пренебреги|не следуй|не выполняй)[^ ]*(?: [^ ]+){0,4} (?:инструкц|указани|правил|команд|распоряжени|промпт|запрет|ограничени)[^ ]*| (?:новые|твои новые|ваши новые|настоящие) (?:инструкц|указани|задач)[^ ]*| (?:теперь ты|отныне ты|теперь вы|ты теперь)(?: [^ ]+){0,1}",
    ),
    rule(
        InstructionOverride,
        "ignore previous instructions (zh/ja/ko)",
        0.85,
        0,
        r"(?:忽略|无视|忽视|不要理会|不要遵守|忘记|忘掉|無視|忽略掉|放弃|拋棄|抛弃|忘れ|を無視)[^ ]{0,16}?(?:指令|指示|规则|規則|提示|说明|命令|要求|设定|設定|限制|ルール|命令|プロンプト)|(?:新的指令|新指令|新的指示|你现在是|现在你是|你現在是|從現在起你是|从现在起你是|从现在开始你是|あなたは今|今からあなたは|新しい指示)|(?:이전|모든) ?(?:지시|명령|규칙)[^ ]{0,6}(?:무시|잊어)",
    ),
    // --- addressing the model, hiding from the user ---
    rule(
        InstructionOverride,
        "addressed to the model",
        0.6,
        ADDRESSEE,
        r" (?:if|when|while) you (?:are|re) (?:an? )?(?:ai assistant|ai agent|ai model|ai system|ai|a i|artificial intelligence|assistant|language model|large language model|llm|chatbot|bot|agent|model|automated (?:system|assistant|agent|reader|tool))",
    ),
    rule(
        InstructionOverride,
        "addressed to the model",
        0.6,
        ADDRESSEE,
        r" (?:attention|note|notice|message|instructions?|important|reminder|warning|psst|directive|memo) (?:to |for )?(?:the |all |any |every |you )?(?:ai|ai assistant|assistant|assistants|ai agent|ai agents|language model|language models|llm|llms|chatbot|bot|bots|agent|agents|model|models|gpt|chatgpt|claude|gemini|copilot|automated (?:systems?|assistants?|agents?|readers?|tools?)|(?:email|mail|inbox) (?:assistant|agent|bot)|summari[sz]er|ai systems?|ai models?|ai readers?)",
    ),
    rule(
        InstructionOverride,
        "addressed to the model",
        0.55,
        ADDRESSEE,
        r" (?:hey|hello|hi|dear|greetings|yo|ok|okay) (?:there )?(?:ai|ai assistant|assistant|ai agent|language model|llm|chatbot|bot|gpt|chatgpt|robot)(?: |$)",
    ),
    rule(
        InstructionOverride,
        "addressed to the model",
        0.6,
        ADDRESSEE,
        r" (?:when|while|after|before|if|once) (?:the|an|any|this) (?:ai|assistant|ai assistant|model|language model|agent|ai agent|llm|bot|summari[sz]er|automated system)s? (?:reads?|process(?:es)?|summari[sz]es?|parses?|sees?|analy[sz]es?|encounters?|handles?|ingests?|scans?|is reading)",
    ),
    rule(
        InstructionOverride,
        "addressed to the model",
        0.35,
        ADDRESSEE,
        r" (?:when|while|after|once|if) you (?:read|process|summari[sz]e|parse|analy[sz]e|ingest|scan) (?:this|these|the following)",
    ),
    rule(
        InstructionOverride,
        "addressed to the model",
        0.55,
        ADDRESSEE,
        r" (?:the|any|all|every)? ?(?:ai|ai assistant|assistant|ai agent|language model|llm|llms|ai model|ai system)s? (?:reading|processing|summari[sz]ing|parsing|handling|scanning) (?:this|these)| (?:ai|ai assistant|ai agent|language model|llm|llms|ai model|ai system)s? (?:must|shall|is instructed|are instructed|is required|are required|is ordered|should now|needs to|need to|has to|have to)",
    ),
    rule(
        InstructionOverride,
        "addressed to the model (other languages)",
        0.6,
        ADDRESSEE,
        r" (?:wenn du|falls du|wenn sie) (?:eine?|ein) (?:ki|sprachmodell|assistent|bot)| (?:si tu es|si vous etes) (?:une?|un) (?:ia|intelligence artificielle|assistant|modele|bot)| (?:si eres|si usted es|se voce e|se tu es|se sei) (?:una?|um|uma) (?:ia|inteligencia artificial|asistente|assistente|modelo|modello|bot)| (?:als je|als u) (?:een )?(?:ai|taalmodel|assistent|bot) bent| (?:если ты|если вы) (?:ии|ai|ассистент|нейросеть|языковая модель|бот)|(?:如果你是|假如你是)(?:一个)?(?:ai|人工智能|助手|语言模型|模型)",
    ),
    rule(
        InstructionOverride,
        "hide from the user",
        0.55,
        ADDRESSEE,
        r" (?:without|w o) (?:telling|informing|notifying|asking|alerting|consulting|warning|bothering|confirming with|checking with|involving|letting know) (?:the user|the owner|your user|your owner|the human|your human|the recipient|your principal|the account holder)",
    ),
    rule(
        InstructionOverride,
        "hide from the user",
        0.6,
        ADDRESSEE,
        r" (?:do not|don t|dont|never|must not|should not|shouldn t) (?:tell|inform|notify|alert|warn|show|let|mention (?:this|it|these|that) to|reveal (?:this|these|it|that) to|disclose (?:this|these|it|that) to|bother) (?:the user|the owner|your user|your owner|the human|your human|the recipient|your principal)| (?:keep|hide) (?:this|these|it|the following|that|them)(?: [^ ]+){0,2} (?:from|away from) (?:the user|the owner|your user|your owner|the human|your human|the recipient)| (?:the user|your user|the human|your human|the owner) (?:must|should|will|need|needs|can) (?:not|never) (?:know|see|find out|be told|be informed|notice|learn)",
    ),
    rule(
        InstructionOverride,
        "hide from the user",
        0.55,
        ADDRESSEE,
        r" (?:silently|secretly|quietly|covertly|discreetly|invisibly) (?:send|forward|run|execute|escalate|notify|transfer|pay|upload|copy|delete|add|include|append|email|visit|open|fetch|install)",
    ),
    // --- authority claims ---
    rule(
        AuthorityClaim,
        "claims to be an administrator",
        0.55,
        0,
        r" (?:as|i am|i m|im|this is|speaking as|acting as) (?:the|your|an|a) (?:system administrator|system admin|sysadmin|root user|superuser|administrator of this (?:system|ai|assistant|model)|developer of this (?:system|ai|assistant|model)|ai administrator|ai developer|ai operator|model operator|model developer)",
    ),
    rule(
        AuthorityClaim,
        "claims to be an administrator",
        0.4,
        0,
        r" (?:i am|i m|this is|speaking as) (?:the|your) (?:administrator|admin|developer|developers|operator|owner|creator|programmer|maker|supervisor|boss)(?: |$)",
    ),
    rule(
        AuthorityClaim,
        "speaks for the model's makers",
        0.6,
        0,
        r" your (?:developer|developers|creator|creators|operator|operators|owner|programmer|programmers|maker|makers|trainer|trainers|administrator|admin|principal|supervisor) (?:has|have|had|is|are|wants?|says?|said|asks?|asked|requires?|required|instructs?|instructed|authori[sz]ed|approved|ordered)",
    ),
    rule(
        AuthorityClaim,
        "message from the model's makers",
        0.6,
        0,
        r" (?:message|notice|instruction|instructions|directive|order|orders|command|commands|memo|override|request|mandate|policy update) (?:from|by|of) (?:anthropic|openai|open ai|google deepmind|deepmind|meta ai|mistral ai|the developers|your developers|your creators|your creator|the ai (?:team|developers|provider|vendor|company)|the (?:system|platform|model) (?:administrator|admin|operator|owner|team|provider|developers)|the administrator|the system administrator|system administrator|your (?:operator|owner|administrator|admin|programmer|maker|principal))",
    ),
    rule(
        AuthorityClaim,
        "claims permission",
        0.6,
        0,
        r" (?:anthropic|openai|open ai|your developers|your creators|your creator|your operator|your owner|the user|your user|your principal|the account owner) (?:has|have|had|hereby|explicitly|already) (?:already |explicitly |hereby |fully )?(?:authori[sz]ed|approved|instructed|requested|ordered|permitted|granted|allowed|consented|given (?:permission|consent|approval))",
    ),
    rule(
        AuthorityClaim,
        "claims permission",
        0.55,
        0,
        r" (?:authori[sz]ed|approved|sanctioned|mandated|cleared|whitelisted|pre approved|preapproved) by (?:anthropic|openai|open ai|the user|your user|your owner|your operator|your developers|your creators|the developers|the system administrator|the administrator|your principal|management and the user)",
    ),
    rule(
        AuthorityClaim,
        "claims permission",
        0.55,
        0,
        r" (?:on behalf of|speaking for|representing) (?:the user|your user|your owner|your principal|anthropic|openai|open ai|the developers|your developers|your creators)",
    ),
    rule(
        AuthorityClaim,
        "official-sounding override",
        0.7,
        0,
        r" (?:system|admin|administrator|developer|root|sudo|maintenance|emergency|priority|security|master|god|kernel) (?:override|bypass)(?: |$)| (?:official|verified|authentic|mandatory|authorized|authorised|priority|urgent) (?:system|admin|administrator|developer|anthropic|openai|root) (?:message|notice|instruction|directive|override|command|order|update)| (?:highest|top|maximum|elevated|root|admin|administrator|system|developer|sudo|unrestricted) (?:priority|privilege|privileges|access|clearance|authority|permission|permissions) (?:granted|enabled|activated|mode|level|instruction|override)",
    ),
    rule(
        AuthorityClaim,
        "claims authority (other languages)",
        0.55,
        0,
        r" (?:als|ich bin|hier ist|hier spricht) (?:der |die |ihr |dein |euer )?(?:systemadministrator|system administrator|administrator|admin|entwickler|betreiber)(?: |$)| (?:nachricht|anweisung|mitteilung|befehl|anordnung) (?:von|vom|des|der) (?:anthropic|openai|den entwicklern|deinen entwicklern|entwickler|systemadministrator|administrator|betreiber)| (?:en tant qu|en tant que|je suis) (?:l |le |la |votre |ton )?(?:administrateur|admin|developpeur|operateur)(?: |$)| (?:message|instruction|consigne|ordre|note|directive) (?:de|d|des|du) (?:anthropic|openai|l administrateur|administrateur systeme|developpeurs|vos developpeurs|tes developpeurs|tes createurs)| (?:como|soy|sou|sono|come) (?:el |tu |su |o |seu |l |il |tuo )?(?:administrador|desarrollador|desenvolvedor|amministratore|sviluppatore|operador)(?: del sistema| do sistema| di sistema)?(?: |$)| (?:mensaje|instruccion|orden|aviso|mensagem|instrucao|messaggio|istruzione|ordine) (?:de|da|do|di|dal|dagli|dos|de los) (?:anthropic|openai|los desarrolladores|tus desarrolladores|desenvolvedores|seus desenvolvedores|sviluppatori|tuoi sviluppatori|administrador|amministratore)| (?:als|ik ben) (?:de |je |uw )?(?:systeembeheerder|beheerder|ontwikkelaar)(?: |$)| bericht van (?:anthropic|openai|de ontwikkelaars|je ontwikkelaars|de beheerder)| (?:как|я) (?:системный )?(?:администратор|разработчик)(?: |$)| (?:сообщение|указание|приказ|инструкция) от (?:anthropic|openai|разработчиков|администратора|твоих разработчиков)|(?:我是|作为)(?:系统|你的)?(?:管理员|开发者|开发人员|创建者)|来自(?:openai|anthropic|开发者|开发人员|管理员|系统)的(?:消息|指令|通知|命令)",
    ),
    // --- action requests ---
    rule(
        ActionRequest,
        "escalate to the user",
        0.65,
        0,
        r" (?:escalate|escalating|raise|forward|surface|push|report|send)(?: [^ ]+){0,3} (?:to|for) (?:the user|your user|the owner|your owner|your human|the human|your principal)(?: |$)",
    ),
    rule(
        ActionRequest,
        "set an answer field",
        0.6,
        0,
        r" (?:set|make|mark|turn|flip) (?:the |your )?(?:escalate|escalation|escalate flag|escalate field|importance)(?: [^ ]+){0,2} (?:to )?(?:true|on|yes|10|9)(?: |$)",
    ),
    rule(
        ActionRequest,
        "escalate",
        0.4,
        NEGATABLE,
        r" (?:escalate|escalation)(?: [^ ]+){0,3} (?:immediately|now|urgently|right away|at once|asap|as (?:urgent|critical|high priority|top priority|an emergency|the highest priority))",
    ),
    rule(
        ActionRequest,
        "notify the user",
        0.6,
        NEGATABLE,
        r" (?:notify|alert|message|text|ping|page|call|wake|wake up|contact|email|e mail|warn|tell) (?:the user|your user|the owner|your owner|your human|the human|your principal)(?: [^ ]+){0,3} (?:immediately|now|right away|at once|urgently|asap|that|about|to|with|saying)",
    ),
    rule(
        ActionRequest,
        "notify the user",
        0.55,
        NEGATABLE,
        r" (?:send|push|trigger|fire|raise|issue|create|generate)(?: an?)?(?: urgent| immediate| high priority| critical| emergency)? (?:notification|alert|push notification|sms|text message|page|reminder)s? (?:to )?(?:the user|your user|the owner|your owner|your human|everyone|all contacts|all users|every contact)",
    ),
    rule(
        ActionRequest,
        "payment",
        0.45,
        NEGATABLE,
        r" (?:pay|transfer|wire|send|remit|move|deposit)(?: [^ ]+){0,3} (?:\d[^ ]* )?(?:usd|eur|gbp|chf|dollars|euros|pounds|bitcoin|btc|eth|ether|usdt|crypto|funds|money|payment|the (?:amount|balance|sum|outstanding))(?: [^ ]+){0,5} (?:to|into) (?:this|the|the following|the below|my|our|account|wallet|iban|address|bank)",
    ),
    rule(
        ActionRequest,
        "payment",
        0.55,
        NEGATABLE,
        r" (?:buy|purchase|order|get) (?:\d+ |some |a few |several )?(?:(?:amazon|apple|itunes|google play|steam|ebay) (?:gift )?cards?|gift ?cards?|vouchers?|prepaid cards?)(?: |$)| (?:approve|authori[sz]e|execute|process|complete|initiate|release|confirm) (?:the |this |a |any |all )?(?:pending )?(?:payment|transfer|transaction|wire|purchase|withdrawal)s?(?: [^ ]+){0,3} (?:automatically|without|silently|immediately|on my behalf|on behalf)",
    ),
    rule(
        ActionRequest,
        "run a command",
        0.4,
        NEGATABLE,
        r" (?:run|execute|exec|launch|invoke|eval|evaluate|call)(?: [^ ]+){0,2} (?:command|commands|shell|script|code|tool|bash|powershell|terminal|snippet|program|payload|binary)(?: |$)",
    ),
    rule(
        ActionRequest,
        "run a command",
        0.6,
        0,
        r" (?:use|call|invoke|trigger|run) (?:your|the) (?:shell|bash|terminal|code execution|code interpreter|browser|email|e mail|mail|send email|file|filesystem|payment|notify|notification|escalat[^ ]*) (?:tool|function|capability|plugin|access|api)",
    ),
    rule(
        ActionRequest,
        "delete data",
        0.45,
        NEGATABLE,
        r" (?:delete|erase|wipe|remove|destroy|purge|shred)(?: (?:all|every|of|the|user s|users|your|owner s|their|his|her|my|our|these|those|old|older|existing|stored|saved|local|remote)){1,4} (?:files?|emails?|e mails?|mails?|messages?|data|backups?|documents?|notes?|memories|contacts?|records?|logs?|history|inbox|folders?|director(?:y|ies)|photos?)(?: |$)",
    ),
    rule(
        ActionRequest,
        "spend the user's money",
        0.6,
        NEGATABLE,
        r" (?:purchase|buy|order|subscribe to|upgrade to|book|sign up for|charge|pay for)(?: [^ ]+){0,4} (?:on|with|using|from|to) (?:the user s|your user s|the owner s|your owner s|the users|their|his|her) (?:card|credit card|debit card|account|paypal|bank account|bank|wallet|payment method)",
    ),
    // --- exfiltration ---
    rule(
        Exfiltration,
        "send secrets",
        0.55,
        NEGATABLE | DESTINATION,
        r" (?:send|forward|upload|post|email|e mail|mail|transmit|copy|leak|exfiltrate|share|paste|submit|dump|attach|deliver|bcc|fax|relay|export|sync|reply with|respond with|include|append)(?: [^ ]+){0,4} (?:api keys?|api tokens?|keys|passwords?|passcodes?|passphrases?|credentials|login details|secrets?|access tokens?|auth tokens?|bearer tokens?|session tokens?|ssh keys?|private keys?|id rsa|dotenv|env file|environment variables|env vars|cookies|session cookies|2fa codes?|otp|one time (?:codes?|passwords?)|verification codes?|recovery codes?|backup codes?|seed phrases?|mnemonic|wallet keys?|system prompt|conversation|chat history|chat logs?|memory|memories|subconscious|inbox|address book|contact list|all (?:the |of the |your |my )?(?:files|emails|e mails|mails|messages|documents|data|contacts|attachments|notes)|every (?:file|email|message|document)|the user s [^ ]+|your user s [^ ]+|the owner s [^ ]+)(?: |$)",
    ),
    rule(
        Exfiltration,
        "send to an address",
        0.4,
        NEGATABLE | DESTINATION,
        r" (?:send|forward|upload|post|email|transmit|copy|exfiltrate|leak|bcc|relay|export)(?: [^ ]+){0,3} (?:it|this|them|everything|that|these|this (?:email|message|thread|conversation|summary|document|file|data)|a copy|copies)(?: [^ ]+){0,2} (?:to|at) (?:this|the following|my|our|an?|the)? ?(?:address|email|e mail|url|link|server|endpoint|webhook|site|domain|inbox|bucket|pastebin|external)",
    ),
    rule(
        Exfiltration,
        "redirect mail",
        0.45,
        NEGATABLE | DESTINATION,
        r" (?:bcc|cc|forward|redirect|copy|mirror|auto forward) (?:every|all|each|any|future|all future|all incoming|all outgoing) (?:reply|replies|email|emails|e mails|message|messages|mail|mails|incoming|outgoing|correspondence)(?: [^ ]+){0,3} to",
    ),
    rule(
        Exfiltration,
        "data in a URL",
        0.8,
        0,
        r" (?:append|add|include|insert|put|attach|encode|embed|concatenate|substitute|place)(?: [^ ]+){0,5} (?:api keys?|keys|passwords?|credentials|secrets?|tokens?|conversation|chat history|summary|memory|system prompt|contents|content|data|history|the user s [^ ]+|messages|email|emails)(?: [^ ]+){0,5} (?:to|in|into|as|inside) (?:the|this|a|an)? ?(?:url|link|query|query string|parameter|param|image url|image link|request|path|subdomain)",
    ),
    rule(
        Exfiltration,
        "data in a URL",
        0.75,
        0,
        r" (?:visit|open|fetch|load|request|browse to|navigate to|call|ping|get|render|display|show)(?: [^ ]+){0,4} (?:url|link|endpoint|webhook|image|address|page)(?: [^ ]+){0,6} (?:with|containing|including|carrying|appending|plus) (?:the|your|all|any)? ?(?:api keys?|keys|passwords?|credentials|secrets?|tokens?|data|conversation|summary|contents|chat history|memory|system prompt)",
    ),
    rule(
        Exfiltration,
        "asks for the prompt",
        0.8,
        0,
        r" (?:reveal|print|show|output|repeat|display|leak|dump|tell me|give me|share|disclose|recite|write out|return|echo|paste)(?: [^ ]+){0,3} (?:system prompt|initial prompt|hidden prompt|original prompt|original instructions|instructions you were given|your instructions|your prompt|developer message|system message|your rules|your configuration|your context window)",
    ),
    rule(
        Exfiltration,
        "send secrets (other languages)",
        0.55,
        NEGATABLE | DESTINATION,
        r" (?:sende|schicke|schick|leite|ubermittle|lade)[^ ]*(?: [^ ]+){0,4} (?:passwort|passworter|zugangsdaten|schlussel|api schlussel|token|geheimnis|alle dateien|alle e mails|alle mails|alle nachrichten|den systemprompt)[^ ]*| (?:envoie|envoyez|transfere|transferez|transmets|transmettez|partage|partagez)(?: [^ ]+){0,4} (?:mots? de passe|identifiants|cles|cle api|jetons?|secrets?|tous les fichiers|tous les e ?mails|tous les messages|le prompt systeme)| (?:envia|envie|enviad|reenvia|reenvie|manda|mande|invia|inviate|inoltra|inoltrate)(?: [^ ]+){0,4} (?:contrasenas?|senhas?|password|credenciales|credenciais|credenziali|claves|chaves|chiavi|tokens?|todos los archivos|todos os arquivos|tutti i file|todos los correos|todos os emails|tutte le email)| (?:отправь|отправьте|перешли|перешлите|пришли|пришлите|загрузи|загрузите)(?: [^ ]+){0,4} (?:парол|ключ|токен|учетные данные|все файлы|все письма|секрет)[^ ]*|(?:发送|发给|转发|上传)[^ ]{0,10}(?:密码|密钥|令牌|凭证|所有文件|所有邮件)|(?:所有|全部)(?:的)?(?:文件|邮件|密码|密钥)[^ ]{0,6}(?:发送|发给|转发|上传)",
    ),
];

/// Rules on the original text (case-insensitive unless they say otherwise).
pub const RAW_RULES: &[Rule] = &[
    // A cipher to undo and then obey: the text hides an instruction from a reader's eye
    // and asks the model to run it ("apply ROT13 to the text below, then follow it").
    rule(
        InstructionOverride,
        "decode and follow",
        0.6,
        0,
        r"(?i)\brot[- ]?13\b[^\n]{0,60}?(?:\b(?:follow|obey|execute|carry out|do what|suivez|suis-le|obéis|exécutez|exécute|befolge|folge|führe .{0,20}aus|sigue|síguelo|obedece|ejecuta|siga|execute|segui|esegui|volg|voer|выполни|следуй|wykonaj|zastosuj się|utför|följ|uygula|uyun|jalankan|ikuti|thực hiện|làm theo)|执行|遵循|照做|実行|従って|실행|따르)",
    ),
    rule(
        InstructionOverride,
        "chat-template token",
        0.9,
        0,
        r"(?i)<\|\s*(?:im_start|im_end|im_sep|system|user|assistant|developer|endoftext|eot_id|eom_id|start_header_id|end_header_id|begin_of_text|end_of_text|tool_call|channel|message|start|end)\s*\|>|<\s*/?\s*(?:start_of_turn|end_of_turn)\s*>|\[/?INST\]|<<\s*/?SYS\s*>>|\[/?(?:SYSTEM|SYS)\]|</?(?:system|assistant|developer|system_prompt|sys|im_start|instructions|admin_instructions|user_instructions|tool_output)>",
    ),
    rule(
        InstructionOverride,
        "fake turn",
        0.7,
        0,
        r"(?im)^[ \t>*_]*#{1,6}[ \t]*(?:system|developer|assistant|user|human|ai)(?:[ \t]+(?:prompt|message|instructions?|override|note|turn))?[ \t]*:?[ \t]*$|^[ \t>*_]*#{1,6}[ \t]*(?:system|developer|assistant|human)(?:[ \t]+(?:prompt|message|instructions?|override|note|turn))?[ \t]*:",
    ),
    rule(
        InstructionOverride,
        "fake turn",
        0.6,
        0,
        r"(?m)^[ \t>*_\[(-]*(?:SYSTEM|DEVELOPER|ASSISTANT|ADMIN|ADMINISTRATOR)(?:[ \t_]+(?:PROMPT|MESSAGE|OVERRIDE|NOTE|NOTICE|INSTRUCTIONS?|UPDATE|DIRECTIVE))?[ \t\])]*:|(?i)[\[({](?:system|developer|admin|administrator|assistant)(?:[ _-]?(?:message|note|override|prompt|notice|instructions?|directive))?[\])}][ \t]*:?",
    ),
    rule(
        InstructionOverride,
        "new instructions",
        0.7,
        0,
        r"(?im)^[ \t>*_#-]*(?:new|updated|revised|real|secret|important|additional|override|priority)[ \t]+(?:system[ \t]+)?(?:instructions?|directives?|task|rules)[ \t*_]*:",
    ),
    rule(
        InstructionOverride,
        "addressed to the model",
        0.55,
        ADDRESSEE,
        r"(?im)^[ \t>*_-]*(?:(?:dear|hey|hi|hello|attention|note to|psst)[ \t]+)?(?:ai|a\.i\.|assistant|ai assistant|ai agent|llm|chatbot|bot|language model|gpt|chatgpt|copilot)s?[ \t]*[,:]",
    ),
    rule(
        InstructionOverride,
        "fake turn",
        0.4,
        0,
        r"(?im)^[ \t>*_]*(?:system|developer|assistant|ai|system prompt|system message|developer message)[ \t]*:[ \t]*\S",
    ),
    rule(
        InstructionOverride,
        "override header",
        0.5,
        0,
        r"(?im)^[ \t>*_#\[(-]*(?:system |admin |administrator |developer |instruction |priority )?override[ \t\])*_]*:",
    ),
    rule(
        ActionRequest,
        "sets the answer's fields",
        0.55,
        0,
        r"(?i)(?:^|[\s\[{\x22'*>-])(?:importance|escalate|escalation|notify_user|notify)[ \t]*[=:][ \t]*[\x22']?(?:10|9|true|yes)\b(?:[\s,.;!\x22'}\]]|$)",
    ),
    rule(
        ActionRequest,
        "download and run",
        0.45,
        0,
        r"(?i)\b(?:curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|;]{1,300}\|\s*(?:sudo\s+)?(?:ba|z|k|da|fi)?sh\b",
    ),
    rule(
        ActionRequest,
        "destructive command",
        0.6,
        0,
        r"(?i)\brm\s+-(?:rf|fr|r\s+-f)\s+(?:/|~/?|\$HOME/?|\*|/\*)(?:\s|$|;|&)|(?i)\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-e(?:nc|ncodedcommand)?\s|(?i)\b(?:iex|invoke-expression)\b|\bmkfs\.\w+\s+/dev/|\bdd\s+if=\S+\s+of=/dev/[sh]d|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\bnc\s+(?:-\w+\s+)*-e\s+/bin/(?:ba)?sh|/dev/tcp/\d|\bchmod\s+-R\s+777\s+/(?:\s|$)|\bbase64\s+(?:-d|--decode)\b[^\n|]{0,200}\|\s*(?:ba|z)?sh\b",
    ),
    rule(
        Exfiltration,
        "URL with a placeholder for data",
        0.8,
        0,
        r"(?i)https?://[^\s<>\x22']+[?&#/=](?:[\w.-]*=)?(?:\{\{?\s*[\w. -]+\s*\}\}?|\$\{?[A-Za-z_][\w]*\}?|%7[bB]%7[bB]?[\w.%-]+%7[dD]|<[\w .'-]{2,40}>|\[[\w .'-]{2,40}\]|YOUR_[A-Z_]+|[A-Z][A-Z_]{2,}(?:KEY|TOKEN|SECRET|PASSWORD|DATA|PROMPT|HISTORY|CONTENTS?|SUMMARY))",
    ),
    rule(
        Exfiltration,
        "URL carrying a secret",
        0.55,
        0,
        r"(?i)https?://[^\s<>\x22']+[?&](?:api_?key|apikey|secret|client_secret|password|passwd|pwd|private_key|ssh_key|aws_secret(?:_access_key)?|access_key|secret_key|creds?|credentials)=[^\s&]{4,}",
    ),
    rule(
        Exfiltration,
        "URL carrying a key",
        0.8,
        0,
        r"https?://[^\s<>\x22']+[?&=/](?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[abpors]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ)",
    ),
    rule(
        Exfiltration,
        "image beacon",
        0.5,
        0,
        r"!\[[^\]\n]{0,200}\]\(\s*<?https?://[^)\s]+\?[^)\s]+\)|(?i)<img\b[^>]{0,300}\bsrc\s*=\s*[\x22']?https?://[^\x22'>\s]+\?[^\x22'>\s]*(?:data|d|q|c|p|info|msg|payload|secret|key|token|content|summary|history)=",
    ),
    rule(
        ActionRequest,
        "script in text",
        0.45,
        0,
        r"(?i)<script\b|<svg\b[^>]{0,100}\bon[a-z]{3,12}\s*=|<img\b[^>]{0,200}\bon(?:error|load)\s*=|\bjavascript:[a-z]",
    ),
    rule(
        Kind::HiddenText,
        "text hidden by style",
        0.45,
        0,
        r"(?i)display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem)?\s*[;\x22']|opacity\s*:\s*0(?:\.0+)?\s*[;\x22']|color\s*:\s*(?:#fff(?:fff)?|white|transparent)\s*;?\s*background(?:-color)?\s*:\s*(?:#fff(?:fff)?|white)",
    ),
];
