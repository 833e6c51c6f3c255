//! The words of a request to pay or to give credentials, of a callback scam and of a
//! shell pipe, in the screen's languages (English, German, French, Spanish, Portuguese,
//! Italian, Dutch, Russian, Chinese, Japanese, Korean: `untrusted::rules`), as data.
//!
//! Written against a text's [words](super::text::words) (lowercase, Latin letters without
//! accents, full-width forms folded), one sentence at a time ([`super::text::sentences`]),
//! except the shell pipe (the lowercased view: it lives in punctuation). Every pattern is a
//! `regex` automaton, linear in the text. Gaps are bounded (`.{0,60}`), and both orders
//! are written where a language puts the verb last (German, Dutch, Japanese, Korean,
//! Chinese: "4.950 € bitte heute überweisen", "4,950ユーロを送金してください").
//!
//! Data and the few functions that read it; what a finding means is `super`'s.

use std::sync::LazyLock;

use regex::Regex;

/// Built on first use (a decision is read rarely; an ordinary tick builds none).
fn regex(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

fn found(re: &LazyLock<Option<Regex>>, text: &str) -> bool {
    re.as_ref().is_some_and(|re| re.is_match(text))
}

/// An amount of money: a currency sign or code next to digits, a currency word.
const AMOUNT: &str = concat!(
    r"(?:(?:[€$£¥₹₽₩]|\br\$|\bus\$)\s?\d",
    r"|\d[\d.,' ]*\s?(?:[€$£¥₹₽₩]|(?:万|萬|千|百)?(?:元|円|块|塊)|(?:만|천|백|억)?\s?원|ユーロ|ドル|유로|달러|美元|欧元|евро|руб|долл)",
    r"|\d[\d.,]*\s?(?:k|grand)\b",
    r"|\b(?:eur|usd|gbp|chf|jpy|cny|rmb|rub|krw|brl|inr|aud|cad|pln|sek|nok|dkk|btc|eth|usdt|usdc|xmr)\b",
    r"|\b(?:euros?|dollars?|bucks|quid|pounds|franken|francs|reais|pesos|yuan|yen|rubles?|roubles?|bitcoins?|crypto)\b",
    r"|\bрубл|\bдоллар|\bевро\b|ユーロ|ドル|유로|달러|美元|欧元|比特币|ビットコイン|비트코인)",
);

/// What is paid: a fee, an invoice, a balance, money, rent, a fine.
const OBJECT: &str = concat!(
    r"(?:\b(?:fees?|invoices?|bills?|balance|money|funds|rent|deposit|fine|toll|ransom|tax(?:es)?|dues|down payment|tuition|bail)\b",
    r"|'?s? new (?:bank )?account\b",
    r"|\b(?:rechnung|gebuhr|betrag|summe|geld|miete|kaution|zoll|strafe|bussgeld|mahngebuhr)\w*",
    r"|\b(?:facture|frais|somme|montant|argent|loyer|caution|amende|cotisation)s?\b",
    r"|\b(?:factura|importe|cantidad|dinero|tasa|alquiler|fianza|multa|deuda|cuota)s?\b",
    r"|\b(?:fatura|boleto|taxa|quantia|dinheiro|aluguel|divida|mensalidade)s?\b",
    r"|\b(?:fattura|importo|somma|denaro|soldi|tassa|affitto|bolletta)\b",
    r"|\b(?:factuur|bedrag|geld|kosten|huur|borg|boete|schuld|verzendkosten)\b",
    r"|\b(?:сч[её]т|сумм|деньг|долг|штраф|пошлин|аренд|залог)\w*",
    r"|费用|账单|款项|金额|关税|罚款|税款|房租|押金|欠款|料金|請求|金額|代金|関税|税金|罰金|家賃",
    r"|요금|금액|대금|관세|세금|벌금|월세|보증금)",
);

/// A verb that asks to pay or transfer.
const PAY_VERB: &str = concat!(
    r"(?:\b(?:pay|settle|remit|transfer|wire|deposit|reimburse|refund me|top up|send over|wired|transferred|remitted|deposited)\b",
    r"|\b(?:uberweis|bezahl|begleich|einzahl)\w*|\bzahl(?:en|e|t)\b|\berstatten sie\b",
    r"|\b(?:payer|payez|regler|reglez|virer|virez|verser|versez|rembourser|remboursez)\b|\bregle[rz]?\b",
    r"|\b(?:pagar|pague|paga|paguen|pagad|transfiera|transfieran|transferir|transfiere|abone|abonar|deposite|depositar|ingrese|ingresar|reembolse|reembolsar)\b",
    r"|\b(?:pague|pagar|paga|transfira|transfiram|deposite|quite|quitar)\b",
    r"|\b(?:pagare|paghi|pagate|trasferisci|trasferire|versa|versare|versate|salda|saldare|saldate|rimborsa|rimborsare|rimborsami)\b",
    r"|\b(?:betaal|betalen|overmaken|maak\b.{0,40}\bover|overschrijven|stort|storten|voldoe|voldoen)\b",
    r"|\b(?:оплат|заплат|перевед|перевест|перечисл|погас|внесит|внеси)\w*",
    r"|支付|付款|转账|轉帳|汇款|匯款|打款|缴纳|缴费|繳費|付清|结清|支払|払って|払い込|払込|振込|振り込|送金|入金",
    r"|(?:결제|송금|이체|입금|납부|지불)(?:를|을|가|이)? ?(?:해|하세요|하십시오|하시기|바랍니다|부탁|필요)|갚아)",
);

/// A noun that names a payment or transfer.
const PAY_NOUN: &str = concat!(
    r"(?:\b(?:payment|transfer|wire)\b|\b(?:uberweisung|zahlung)\b|\b(?:virement|paiement|versement)\b",
    r"|\b(?:pago|transferencia|pagamento|bonifico|betaling|overboeking|overschrijving)\b|\bплат[её]ж|\bперевод)",
);

/// A verb that asks to send or give (money when an amount follows).
const GIVE_VERB: &str = concat!(
    r"(?:\b(?:send|give|lend|loan|venmo|zelle)\b",
    r"|\b(?:sende|senden|schick|schicke|schicken|leih|gib|geben sie)\b",
    r"|\b(?:envoie|envoyez|envoyer|donnez|donne|pretez)\b",
    r"|\b(?:envia|envie|enviar|envien|enviad|manda|mande|mandar|presta|preste|empresta|empreste)\b",
    r"|\b(?:invia|inviate|inviare|mandami|mandate|presta|prestami)\b",
    r"|\b(?:stuur|sturen|geef|leen)\b",
    r"|\b(?:отправьте|отправь|пришлите|скиньте|скинь|одолжите|одолжи)\b",
    r"|发给|给我|寄给|借我|送って|貸して|보내|빌려)",
);

/// A number of three digits or more (a year `19xx`/`20xx` is not an amount), not a count
/// of something else.
const NUMBER: &str = r"(?:\b(?:\d{1,3}(?:[.,' ]\d{3})+|\d{3}|[03-9]\d{3}|1[0-8]\d{2}|2[1-9]\d{2}|\d{5,})\b(?:\s?(?:errors?|requests?|rows?|items?|users?|ms|gb|mb|tb|kb|files?|photos?|pods?|times|%))?)";

/// A payment app, its handle or its verb.
const APP: &str = concat!(
    r"(?:(?-u:\b)(?:zelle|venmo|cash ?app|cashapp|paypal(?:\.me)?|revolut|western union|moneygram|remitly|pix|bizum|lydia|paylib|satispay|tikkie|mobilepay|vipps|twint|alipay|wechat pay|apple cash|sbp|qiwi|kakaopay|paypay|line pay)(?-u:\b)",
    r"|\bсбп\b|支付宝|微信支付|微信转账|카카오페이|토스|ペイペイ)",
);

/// A handle a payment app sends money to (`@maria-lopez`, `$WestHighPTA`).
const HANDLE: &str = r"(?:[@$][a-z][\w.-]{1,30})";

/// Asks to pay, in one sentence of words: a pay verb near an amount, what is paid or a
/// sum; a give verb near an amount; a payment app near a handle, an amount or a sum;
/// an amount due; new bank details; a fee for a parcel; an IBAN named.
static PAYMENT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let verb_first = format!("{PAY_VERB}.{{0,60}}?(?:{AMOUNT}|{OBJECT}|{NUMBER})");
    let verb_last = format!("(?:{AMOUNT}|{OBJECT}).{{0,40}}?{PAY_VERB}");
    let noun = format!("{PAY_NOUN}.{{0,40}}?{AMOUNT}|{AMOUNT}.{{0,30}}?{PAY_NOUN}");
    let give = format!("{GIVE_VERB}.{{0,40}}?{AMOUNT}|{AMOUNT}.{{0,20}}?{GIVE_VERB}");
    let app = format!(
        "{APP}.{{0,40}}?(?:{HANDLE}|{AMOUNT}|{NUMBER})|(?:{HANDLE}|{AMOUNT}).{{0,40}}?{APP}|\\b(?:zelle|venmo|cash ?app) (?:me|him|her|them|us|it)\\b|\\bfa(?:c|z|ca) um pix\\b|\\bhazme un bizum\\b"
    );
    regex(
        &[
            verb_first,
            verb_last,
            noun,
            give,
            app,
            DUE.to_string(),
            BANK_DETAILS.to_string(),
            FEE.to_string(),
            r"\biban\b".to_string(),
        ]
        .join("|"),
    )
});

/// An amount or a balance due.
const DUE: &str = concat!(
    r"(?:\b(?:due|overdue|outstanding|unpaid|payable)\b|\b(?:fallig|offene?n?|ausstehend|zu zahlen)\b|\b(?:a regler|a payer|impayee?s?|du|due)\b",
    r"|\b(?:pendiente|vencid[ao]|a pagar|em aberto|em atraso|in sospeso|da pagare|scadut[ao]|openstaande?|verschuldigd)\b|\bк оплате\b|\bзадолженност\w*",
    r"|未払|未納|未支付|待支付|逾期|미납|연체)",
    r".{0,40}?",
    r"(?:(?:[€$£¥₹₽₩]|\br\$)\s?\d|\d[\d.,' ]*\s?(?:[€$£¥₹₽₩]|元|円|원|\b(?:eur|usd|gbp|euros?|dollars?)\b))",
    r"|\b(?:balance|saldo|solde|restbetrag|остаток)\b.{0,15}?\d[\d.,]{2,}.{0,30}?\b(?:due|fallig|du|vence|scade|vervalt)\b",
);

/// New bank details.
const BANK_DETAILS: &str = concat!(
    r"(?:\b(?:bank|banking|payment|account|wire|remittance) (?:details|information|info|instructions|account)\b.{0,40}\b(?:changed|updated|new|different|moved)\b",
    r"|\b(?:new|updated|changed|different) (?:bank|banking|beneficiary|receiving|remittance|payment) (?:account|details|information|info|instructions)\b",
    r"|\bneuen? (?:bankverbindung|kontoverbindung|kontodaten|bankdaten|iban)\b|\b(?:bankverbindung|kontoverbindung|bankdaten|kontodaten) (?:hat|haben) sich\b",
    r"|\bnouve(?:au|lle)s? (?:rib|iban|coordonnees bancaires)\b|\bcoordonnees bancaires ont (?:change|ete modifiees)\b|\bchangement de (?:rib|banque|coordonnees bancaires)\b",
    r"|\bnuev[oa]s? (?:cuenta|datos bancarios|iban)\b|\b(?:datos bancarios|cuenta bancaria) (?:han|ha) cambiado\b|\bcambiamos de banco\b",
    r"|\bnov[oa]s? (?:conta|dados bancarios)\b|\bdados bancarios mudaram\b|\bmudamos de banco\b",
    r"|\bnuov[oae] (?:iban|conto|coordinate bancarie)\b|\bcambiato (?:l )?iban\b|\bcoordinate bancarie sono cambiate\b",
    r"|\bnieuwe? (?:rekeningnummer|bankrekening|bankgegevens|iban)\b|\bbankgegevens zijn gewijzigd\b",
    r"|\bнов\w* (?:реквизит|сч[её]т)\w*|\bреквизиты изменились\b",
    r"|新的?(?:银行)?账户|新账号|更换(?:了)?账户|账户变更|新しい口座|振込先(?:が|を)?変更|口座が変更|새 ?계좌|새로운 계좌|계좌(?:가|를)? 변경)",
);

/// A fee to release a parcel.
const FEE: &str = concat!(
    r"(?:\b(?:customs|delivery|redelivery|release|processing|clearance|handling|unlock|activation) fees?\b",
    r"|\b(?:zollgebuhr|bearbeitungsgebuhr|zustellgebuhr)\w*|\bfrais de (?:douane|livraison|dossier|dedouanement)\b",
    r"|\b(?:tasa|tasas) de aduana\b|\bgastos de (?:envio|aduana)\b|\btaxa (?:alfandegaria|de entrega|de desembaraco)\b",
    r"|\btassa (?:di sdoganamento|doganale)\b|\bspese di (?:spedizione|consegna|sdoganamento)\b|\b(?:invoerrechten|inklaringskosten)\b",
    r"|\bтаможенн\w* пошлин\w*|关税|清关费|関税|通関|관세|통관)",
);

/// A payment or transfer already made (a receipt, not a request).
static DONE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(?:was|were|has been|have been|is|are) (?:paid|transferred|sent|executed|completed|processed|settled|credited|debited|received|refunded|issued|booked|confirmed|scheduled)\b",
        r"|\b(?:you|we) (?:paid|sent|received)\b|\b(?:arrived|went through|left the account)\b",
        r"|\b(?:gezahlt|bezahlt|erhalten)\b|\b(?:vous avez (?:recu|paye)|recu)\b|\b(?:recibido|recibiste|has recibido|pagado|ha llegado|llego|mandaste|enviaste)\b|\b(?:chegou|e arrivato|est arrive|ist angekommen|is aangekomen)\b",
        r"|\b(?:recebido|recebeu|voce pagou)\b|\b(?:ricevuto|hai pagato|pagato)\b|\b(?:betaald|ontvangen)\b",
        r"|收到|已收|受け取りました|受取済|받았습니다|받았어요|받음",
        r"|\bwurde\w* (?:\w+ )?(?:ausgefuhrt|uberwiesen|bezahlt|gutgeschrieben|abgebucht|erstattet)\b|\bist eingegangen\b",
        r"|\ba ete (?:effectue|paye|verse|recu|credite|preleve|rembourse)e?s?\b",
        r"|\bse (?:realizo|ha realizado|completo|ha completado|abono|ha abonado)\b|\bfue (?:realizad|pagad|enviad)[ao]\b",
        r"|\bfoi (?:concluid|realizad|pag|creditad|debitad|enviad)[ao]\b",
        r"|\b(?:e|sono) stat[oaie] (?:eseguit|pagat|accreditat|addebitat|inviat)[oaie]\b",
        r"|\bis (?:\w+ )?(?:uitgevoerd|betaald|overgemaakt|ontvangen|bijgeschreven|afgeschreven)\b",
        r"|\b(?:выполнен|зачислен|оплачен|получен|прош[её]л|успешно)\w*",
        r"|已(?:向|经|完成|支付|转账|付款|汇款|退回|退款|到账|入账|原路退回)|完成了|完了しました|済みです|완료되었습니다|완료됐",
    ))
});

/// A request or a failure: a sentence that has one is no receipt.
static ASKED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(?:please|pls|kindly|must|need to|needs to|bitte|merci de|veuillez|por favor|per favore|alstublieft|graag|пожалуйста|срочно)\b",
        r"|\b(?:not|failed|nicht|pas|no|nao|non|niet|не)\b|请|ください|주세요|하세요",
    ))
});

/// Whether `sentence` (of a text's words) asks to pay (see [`PAYMENT`]); a receipt of
/// a payment made does not.
pub fn asks_to_pay(sentence: &str) -> bool {
    let receipt = found(&DONE, sentence) && !found(&ASKED, sentence);
    !receipt && found(&PAYMENT, sentence)
}

/// Gift cards, in any language, and with them a purchase or their codes.
static GIFT_CARD: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\bgift ?cards?\b|\b(?:itunes|google play|steam|amazon|apple|ebay|razer gold|vanilla|visa prepaid|prepaid) (?:gift )?(?:cards?|vouchers?)\b|\bpaysafecard\b|\bprepaid cards?\b",
        r"|\b(?:gutschein|geschenkkarte|guthabenkarte)\w*|\b(?:google[- ]play|itunes|amazon|apple|steam|paysafe)-?(?:karte|gutschein)\w*",
        r"|\bcartes? (?:cadeaux?|google play|itunes|steam|amazon|apple|prepayees?)\b|\bbons? d'achat\b",
        r"|\btarjetas? (?:de )?regalo\b|\btarjetas? (?:google play|itunes|steam|amazon|apple|prepago)\b",
        r"|\bcart(?:ao|oes)[- ](?:presente|google play|itunes|steam|amazon|apple|pre-pago)\b|\bvale[- ]presente\b",
        r"|\bcart[ae] (?:regalo|google play|itunes|steam|amazon|apple|prepagat\w*)\b|\bbuon[oi] regalo\b",
        r"|\b(?:cadeaukaart|cadeaubon)\w*|\b(?:google play|itunes|steam|amazon|apple|bol)[- ]?(?:kaart|tegoed)\w*",
        r"|\bподарочн\w* карт\w*|\bкарт\w* (?:google play|itunes|steam|apple|amazon)\b",
        r"|礼品卡|禮品卡|购物卡|充值卡|e卡|点卡|储值卡|ギフトカード|ギフト券|itunesカード|プリペイドカード|기프트 ?카드|상품권",
    ))
});

/// Buying something, or the codes of a card.
static BUY_OR_CODES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(?:buy|purchase|get|pick up|grab|codes?|pins?|numbers|scratch|backs?|photos?|pics?|pictures?)\b",
        r"|\b(?:kauf|besorg)\w*|\b(?:achet|procur)\w*|\b(?:compr|adquier)\w*|\b(?:acquist)\w*|\b(?:koop|kopen)\b",
        r"|\b(?:купи|приобрет)\w*|\b(?:codes?|codigos?|codici|коды?|nummers?)\b",
        r"|购买|买|卡密|買って|購入|番号|コード|사서|구매|번호|핀",
    ))
});

/// Whether `words` asks to buy gift cards or to pass on their codes.
pub fn gift_cards(words: &str) -> bool {
    found(&GIFT_CARD, words) && found(&BUY_OR_CODES, words)
}

/// What only the holder should know: a password, a one-time code, a PIN, a key.
const SECRET: &str = concat!(
    r"(?:\b(?:password|passcode|passphrase|pass code|credentials?|login(?: details| info)?|log-in|username|2fa|mfa|otp|one[- ]time (?:code|password|passcode|pin)|(?:verification|security|confirmation|authentication|auth|access|sms) code|pin|pin code|cvv|cvc|api key|access key|secret key|token|recovery (?:code|phrase|key)|seed phrase|private key|ssn|social security number|security questions?)s?\b",
    r"|\bcode (?:we|they|google|apple|microsoft|the bank) (?:just )?(?:sent|texted)\b",
    r"|\bauthenticator (?:app )?codes?\b|\bcodes? (?:shown|displayed) (?:in|on)\b|\bcodes? (?:from|in) (?:your|the) (?:authenticator|app|sms|texts?|phone|e-?mail)\b",
    r"|\b(?:\d|four|six|eight)[- ]digit (?:code|pin)s?\b|\b(?:code|codigo|codice|kode|код)s? (?:(?:de|di|van|из|of|with) )?\d+ (?:digits?|digitos|cifre|chiffres|cijfers|цифр)\b|\b(?:code|codigo|codice|код)\b.{0,30}\b(?:sms|смс)\b|\bcodes? (?:you|we) (?:will |just |have |)(?:receive|received|get|got)\b",
    r"|\b(?:passwort|kennwort|zugangsdaten|anmeldedaten|bestatigungscode|sicherheitscode|verifizierungscode|einmalcode|geheimzahl)\w*|\b(?:tan|sms-code)\b|\bcode aus der sms\b",
    r"|\bmots? de passe\b|\bidentifiants?\b|\bcode (?:de (?:verification|securite|confirmation)|recu par sms|sms|pin)\b|\bcode a usage unique\b",
    r"|\bcontrasenas?\b|\bclave(?: de acceso)?\b|\bcredenciales\b|\bcodigo (?:de verificacion|de seguridad|sms|que te llego|pin)\b",
    r"|\bsenhas?\b|\bpalavras?-passe\b|\bcodigo de acesso\b|\bcredenciais\b|\bcodigo (?:de verificacao|de seguranca|sms|que chegou)\b",
    r"|\bcredenziali\b|\bcodice (?:di verifica|otp|di sicurezza|sms|che ti e arrivato|pin)\b",
    r"|\b(?:wachtwoord|inloggegevens|verificatiecode|beveiligingscode|pincode)\b",
    r"|\bпарол\w*|\bлогин\b|\bучетн\w* данн\w*|\bкод (?:из смс|подтвержд\w*|из сообщения)|\bсмс-код\b|\bпин-код\b",
    r"|密码|口令|验证码|驗證碼|校验码|动态码|pin码|パスワード|暗証番号|認証コード|確認コード|セキュリティコード|비밀번호|비번|인증번호|인증 ?코드|보안 ?코드|핀번호)",
);

/// A verb that asks to give, tell, enter or confirm something.
const DISCLOSE: &str = concat!(
    r"(?:\b(?:send|share|give|tell|reply with|respond with|provide|enter|type|submit|confirm|verify|validate|read (?:out|back|me)|text|forward|disclose|re-?enter|input|update (?:your )?(?:login|credentials|account))\b|\b(?:reply|replying|responding)\b",
    r"|\b(?:senden|schicken|sende|schick|teilen|mitteilen|geben sie|gib|nennen|bestatigen|verifizieren|eingeben|weitergeben|weiter|ubermitteln|antworten|tippen|eintippen|schreiben)\w*",
    r"|\b(?:envoyez|envoie|envoyer|communiquez|communiquer|transmettez|transmettre|donnez|donner|indiquez|confirmez|confirmer|saisissez|saisir|entrez|entrer|renseignez|verifiez|verifier|partagez|repondez)\b",
    r"|\b(?:envia|envie|enviame|enviar|manda|mande|mandame|comparte|comparta|dame|dime|diga|digame|confirme|confirma|introduzca|introduce|ingrese|ingresa|escriba|verifique|facilite|proporcione|responda)\b",
    r"|\b(?:envie|mande|compartilhe|passa|passe|fala|informe|digite|insira)\b",
    r"|\b(?:invia|inviami|inviate|mandami|condividi|dammi|dimmi|comunica|comunicaci|conferma|confermi|inserisci|inserire|digita|verifica|rispondi|fornisci|forniscimi)\b",
    r"|\b(?:stuur|deel|geef|vertel|bevestig|voer|vul|verifieer|doorgeven|antwoord)\w*",
    r"|\b(?:сообщ|назов|назови|отправ|пришл|введ|подтверд|скаж|продиктуй|перешл|укаж|ответ)\w*",
    r"|告诉|发给|发送|提供|输入|填写|确认|回复|报给|转发|教えて|送って|送信|入力|返信|伝えて|お知らせ|알려|보내|입력|회신|답장|전달)",
);

/// Asking for a secret: a disclosing verb near it, in either order.
static CREDENTIALS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(&format!(
        "{DISCLOSE}.{{0,50}}?{SECRET}|{SECRET}.{{0,40}}?{DISCLOSE}"
    ))
});

/// "Never", "do not": a credentials warning, not a request.
static NEVER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(
        r"\b(?:never|do not|don't|dont|nie|niemals|keine?n?|jamais|nunca|mai|nooit|никогда|не)\b|决不|绝不|不要|しない|절대",
    )
});

/// Whether `sentence` asks for a password, a code or a key (a warning never to give one
/// does not).
pub fn asks_for_credentials(sentence: &str) -> bool {
    let Some(re) = CREDENTIALS.as_ref() else {
        return false;
    };
    re.find_iter(sentence).any(|m| {
        let mut from = m.start().saturating_sub(24);
        while !sentence.is_char_boundary(from) {
            from -= 1;
        }
        !found(&NEVER, &sentence[from..m.end()])
    })
}

/// Something a callback scam names: a charge, a renewal, a refund, a locked account.
static CALLBACK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(?:charged?|charges|renew(?:ed|al)|auto-?renew\w*|subscription|refund|dispute|unauthori[sz]ed|suspicious|fraud\w*|locked|suspended|frozen|blocked|compromised|hacked|virus|malware|arrest|warrant|lawsuit|irs|hmrc|to cancel|wire transfer|transaction)\b",
        r"|\b(?:abgebucht|belastet|abbuchung|abonnement|verlangert|ruckerstattung|gesperrt|betrug|verdachtig|unberechtigt|stornier)\w*",
        r"|\b(?:debite|prelevement|renouvel|rembours|bloque|suspendu|fraud|suspect|non autoris|annuler)\w*",
        r"|\b(?:cargo|cobro|suscripcion|renovad|reembolso|bloquead|suspendid|fraude|sospechos|no autorizad|anular|anularlo|cancelar)\w*",
        r"|\b(?:cobranca|debito|assinatura|bloquead|suspens|suspeit|nao autorizad)\w*",
        r"|\b(?:addebit|abbonamento|rinnov|rimborso|bloccat|sospes|frode|sospett|non autorizzat|annull|bloccarlo)\w*",
        r"|\b(?:afgeschreven|verlengd|terugbetaling|geblokkeerd|opgeschort|verdacht|niet geautoriseerd|annuleren|blokkeren)\w*",
        r"|\b(?:списан|подписк|продлен|возврат|заблокирован|мошенн|подозрительн|отмен)\w*",
        r"|\b(?:customs|detained|seized|zoll\w*|douane|aduana|alfandega|dogana|таможн\w*)\b",
        r"|扣款|订阅|续订|续费|退款|冻结|诈骗|异常|盗刷|海关|扣留|滞留|定期購入|返金|凍結|不正|税関|구독|갱신|환불|정지|차단|사기|도용|세관|보류",
        // Denial: "not you?", "if you did not make this purchase".
        r"|\b(?:not you|wasn'?t you|was not you|didn'?t (?:make|authori[sz]e|place|order)|did not (?:make|authori[sz]e|place|order)|(?:order|purchase) (?:was |has been )?placed)\b",
        r"|\b(?:nicht sie|waren sie das nicht|nicht von ihnen)\b|\b(?:ce n'?est pas vous|si ce n'?etait pas vous)\b",
        r"|\b(?:no fuiste tu|no has sido tu|no lo reconoces|no reconoce)\b|\b(?:nao foi voce|nao reconhece)\b",
        r"|\b(?:non sei stato tu|non riconosci)\b|\b(?:was u dit niet|was jij dit niet|niet herkent)\b",
        r"|\b(?:это не вы|это были не вы|не совершали)\b|非本人|不是您本人|心当たりがない|身に覚えのない|본인이 아닌|본인이 아니",
    ))
});

/// An amount of money ([`AMOUNT`]).
static AN_AMOUNT: LazyLock<Option<Regex>> = LazyLock::new(|| regex(AMOUNT));

/// Whether `words` names an amount of money.
pub fn names_amount(words: &str) -> bool {
    found(&AN_AMOUNT, words)
}

/// Whether `words` names what a callback scam names.
pub fn callback_words(words: &str) -> bool {
    found(&CALLBACK, words)
}

/// A call and a number of seven digits or more, in either order.
static CALL_NUMBER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"(?:\b(?:call|ring|phone|dial|text|whatsapp|sms|llam\w*|appel\w*|ruf\w*|anruf\w*|chiam\w*|lig\w*|bel|звон\w*|позвон\w*)\b|致电|拨打|电话|電話|전화)",
        r"[^\n]{0,30}?\+?\d[\d ()./-]{6,}\d",
        // The verb last (Korean, Japanese): `1588-2741로 전화해`, `0120-…に電話`.
        r"|\+?\d[\d ()./-]{6,}\d[^\n]{0,12}?(?:전화|電話|お電話|拨打|致电)",
    ))
});

/// Whether `words` asks to call a number.
pub fn call_number(words: &str) -> bool {
    found(&CALL_NUMBER, words)
}

/// A North American toll-free vanity number (`1-800-FLOWERS`), on the view (its letters
/// upper case).
static VANITY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(
        r"(?:\+?1[-. ]?)?\(?8(?:00|33|44|55|66|77|88)\)?[-. ]?[A-Z0-9]{2,}(?:[-. ][A-Z0-9]{2,}){0,3}",
    )
});

/// The vanity numbers of `view` whose letters make ten digits or more, as digits.
pub fn vanity_numbers(view: &str) -> Vec<String> {
    let Some(re) = VANITY.as_ref() else {
        return Vec::new();
    };
    re.find_iter(view)
        .filter(|m| m.as_str().bytes().filter(u8::is_ascii_uppercase).count() >= 3)
        .map(|m| super::text::keypad(m.as_str()))
        .filter(|d| d.len() >= 10)
        .collect()
}

/// The name of an account (a long number near it is an account number).
static ACCOUNT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(?:account|acct|a/c|routing|aba|sort code|iban|bic|swift|beneficiary|bsb|konto\w*|blz|compte|rib|cuenta|clabe|conta|agencia|chave|conto|rekening\w*|сч[её]т\w*|карт\w*)\b",
        r"|账户|账号|帐号|卡号|口座|계좌",
    ))
});

/// Whether `words` names an account.
pub fn names_account(words: &str) -> bool {
    found(&ACCOUNT, words)
}

/// A cryptocurrency address (Bitcoin, Ethereum, Tron), on the view.
static WALLET: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(
        r"\b(?:bc1[ac-hj-np-z02-9]{25,60}|[13][a-km-zA-HJ-NP-Z1-9]{25,34}|0x[a-fA-F0-9]{40}|T[A-Za-z1-9]{33})\b",
    )
});

/// Whether `view` carries a cryptocurrency address.
pub fn wallet(view: &str) -> bool {
    found(&WALLET, view)
}

/// Asking to log or sign in (a link near it is a login link).
static LOG_IN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(?:log ?(?:in|on)|login|sign ?(?:in|on)|signin)\b",
        r"|\b(?:anmelden|einloggen|melden sie sich|connectez-vous|connexion|se connecter|inicie sesion|iniciar sesion|acceda|faca login|accedi|effettua l'accesso|inloggen|aanmelden|log in op)\b",
        r"|\b(?:войдите|войти|авторизу\w*)|登录|登陆|登入|ログイン|サインイン|로그인",
    ))
});

/// Whether `words` asks to log or sign in.
pub fn log_in(words: &str) -> bool {
    found(&LOG_IN, words)
}

/// Words in an address that name a login, sign-in or verification page.
const LOGIN_PAGE: &[&str] = &[
    "login",
    "log-in",
    "signin",
    "sign-in",
    "logon",
    "verify",
    "verification",
    "password",
    "passwd",
    "account-update",
    "update-account",
    "secure-account",
    "auth",
    "sso",
    "wallet",
    "unlock",
    "anmelden",
    "connexion",
    "acceso",
    "acesso",
    "accedi",
    "inloggen",
    "vhod",
];

/// Whether `address` (lowercase) names a login page.
pub fn login_page(address: &str) -> bool {
    LOGIN_PAGE.iter().any(|w| address.contains(w))
}

/// What sends the reader to a place, just before a bare host (`visit`, `go to`, `log in
/// at`, `details:`), in the words before it.
static SENDS_BEFORE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"(?:\b(?:visit|go to|goto|head (?:over )?to|navigate to|browse to|click|tap|log ?in (?:at|on|to|via)|sign ?in (?:at|on|to|via)|login at|download (?:it |them |the \w+ )?(?:from|at)|pay (?:it |them )?(?:at|on|via)|renew (?:it )?(?:at|on)|register at|available at|reply at)",
        r"|\b(?:besuchen sie|besuche|gehen sie auf|geh auf|klicken sie auf|melden sie sich (?:an )?(?:unter|auf|bei)|anmelden (?:unter|auf)|einloggen (?:unter|auf)|(?:erreichbar|abrufbar|verfugbar|mehr|details|infos?) unter|(?:zahlen|bezahlen) sie (?:auf|unter))",
        r"|\b(?:visitez|rendez-vous sur|allez sur|connectez-vous (?:sur|a)|cliquez sur|disponible sur|payez sur|reglez sur)",
        r"|\b(?:visite|visita|entre en|entra en|acceda a|accede a|vaya a|ve a|haz clic en|pulse en|inicie sesion en|disponible en|pague en|paga en)",
        r"|\b(?:acesse|acessa|entre em|va para|clique em|faca login em|disponivel em|pague em)",
        r"|\b(?:visitate|vai su|andate su|accedi a|accedi su|clicca su|disponibile su|paga su)",
        r"|\b(?:ga naar|bezoek|log in op|klik op|beschikbaar op|betaal op)",
        r"|\b(?:перейдите на|перейди на|зайдите на|зайди на|войдите на|откройте|посетите|по ссылке|на сайте)",
        r"|访问|登录|登陆|打开|点击|前往)",
        r"(?: the (?:site|website|page|portal|link))?\s*[:\-]?\s*$",
        r"|(?:\b(?:link|url|website|web site|site|portal|details?|more info|info|infos|webseite|weitere infos|lien|plus d'infos|enlace|mas informacion|mais informacoes|sito|dettagli|meer info|сайт|ссылка|подробнее)\b|网址|链接|详情|詳細|詳しく|자세히)\s*:\s*$",
    ))
});

/// What sends the reader to a place, just after a bare host (`にアクセス`, `에 접속`).
static SENDS_AFTER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(
        r"^\s*(?:にアクセス|へアクセス|を開いて|でログイン|から|에 접속|에서 로그인|에 방문|로 이동|에서 결제)",
    )
});

/// Whether the words around a bare host send the reader to it.
pub fn sends_to(before: &str, after: &str) -> bool {
    found(&SENDS_BEFORE, before) || found(&SENDS_AFTER, after)
}

/// A download piped into a shell (on the lowercased view).
static SHELL_PIPE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n]{0,300}?\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|da|k|fi)?sh|python[23]?|perl|ruby|node|php|iex|invoke-expression|pwsh|powershell|source)\b",
        r"|\b(?:ba|z|da|k)?sh\s+(?:-c\s+)?.{0,4}<\(\s*(?:curl|wget)\b",
        r"|\b(?:sh|bash|zsh)\s+-c\s+\S{0,3}\$\(\s*(?:curl|wget)\b",
        r"|\biex\b.{0,100}\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|net\.webclient)\b",
        r"|\bpowershell(?:\.exe)?\b[^\n]{0,60}\s-(?:e|enc|encodedcommand)\s",
    ))
});

/// Whether `lower` (the lowercased view) pipes a download into a shell.
pub fn shell_pipe(lower: &str) -> bool {
    found(&SHELL_PIPE, lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for (name, re) in [
            ("PAYMENT", &PAYMENT),
            ("DONE", &DONE),
            ("ASKED", &ASKED),
            ("GIFT_CARD", &GIFT_CARD),
            ("BUY_OR_CODES", &BUY_OR_CODES),
            ("CREDENTIALS", &CREDENTIALS),
            ("NEVER", &NEVER),
            ("CALLBACK", &CALLBACK),
            ("AN_AMOUNT", &AN_AMOUNT),
            ("CALL_NUMBER", &CALL_NUMBER),
            ("VANITY", &VANITY),
            ("ACCOUNT", &ACCOUNT),
            ("WALLET", &WALLET),
            ("LOG_IN", &LOG_IN),
            ("SENDS_BEFORE", &SENDS_BEFORE),
            ("SENDS_AFTER", &SENDS_AFTER),
            ("SHELL_PIPE", &SHELL_PIPE),
        ] {
            assert!(re.is_some(), "{name} does not compile");
        }
    }
}
