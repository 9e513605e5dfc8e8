/// The Unicode properties `\p{…}` can name under ECMA-262 that Swift's standard library knows:
/// every General_Category value (`L`, `Letter`, `gc=Lu`, `General_Category=Decimal_Number`)
/// and the binary properties below, with ECMA's exact spelling. Scripts
/// (`Script=`, `Script_Extensions=`) are refused: the standard library has no script data.
enum UnicodeProperty: Sendable, Hashable {
    case generalCategory(Set<UnicodeCategory>)
    case binary(BinaryProperty)

    init?(ecmaName text: String) {
        if let equals = text.firstIndex(of: "=") {
            let name = text[..<equals]
            let value = String(text[text.index(after: equals)...])
            guard name == "General_Category" || name == "gc", let categories = Self.categories[value] else { return nil }
            self = .generalCategory(categories)
        } else if let categories = Self.categories[text] {
            self = .generalCategory(categories)
        } else if let binary = BinaryProperty(rawValue: text) {
            self = .binary(binary)
        } else {
            return nil
        }
    }

    func contains(_ value: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(value) else {
            // Surrogate code points: category Cs, no binary property PushMock supports.
            if case .generalCategory(let categories) = self { return categories.contains(.surrogate) }
            return false
        }
        switch self {
        case .generalCategory(let categories): return categories.contains(UnicodeCategory(scalar.properties.generalCategory))
        case .binary(let property): return property.contains(scalar)
        }
    }

    /// Long and short names of each category and category group (ECMA-262 table 67).
    static let categories: [String: Set<UnicodeCategory>] = {
        var table: [String: Set<UnicodeCategory>] = [:]
        for category in UnicodeCategory.allCases {
            table[category.shortName] = [category]
            table[category.longName] = [category]
            if let alias = category.alias { table[alias] = [category] }
        }
        let groups: [(String, String, String)] = [
            ("L", "Letter", "L"), ("LC", "Cased_Letter", "LC"), ("M", "Mark", "M"), ("N", "Number", "N"), ("P", "Punctuation", "P"),
            ("S", "Symbol", "S"), ("Z", "Separator", "Z"), ("C", "Other", "C"),
        ]
        for (short, long, prefix) in groups {
            let members =
                prefix == "LC"
                ? Set<UnicodeCategory>([.uppercaseLetter, .lowercaseLetter, .titlecaseLetter])
                : Set(UnicodeCategory.allCases.filter { $0.shortName.hasPrefix(prefix) })
            table[short] = members
            table[long] = members
        }
        table["Combining_Mark"] = table["M"]
        table["punct"] = table["P"]
        return table
    }()
}

/// General_Category values, Hashable and with their Unicode names.
enum UnicodeCategory: String, Sendable, Hashable, CaseIterable {
    case uppercaseLetter = "Lu/Uppercase_Letter"
    case lowercaseLetter = "Ll/Lowercase_Letter"
    case titlecaseLetter = "Lt/Titlecase_Letter"
    case modifierLetter = "Lm/Modifier_Letter"
    case otherLetter = "Lo/Other_Letter"
    case nonspacingMark = "Mn/Nonspacing_Mark"
    case spacingMark = "Mc/Spacing_Mark"
    case enclosingMark = "Me/Enclosing_Mark"
    case decimalNumber = "Nd/Decimal_Number"
    case letterNumber = "Nl/Letter_Number"
    case otherNumber = "No/Other_Number"
    case connectorPunctuation = "Pc/Connector_Punctuation"
    case dashPunctuation = "Pd/Dash_Punctuation"
    case openPunctuation = "Ps/Open_Punctuation"
    case closePunctuation = "Pe/Close_Punctuation"
    case initialPunctuation = "Pi/Initial_Punctuation"
    case finalPunctuation = "Pf/Final_Punctuation"
    case otherPunctuation = "Po/Other_Punctuation"
    case mathSymbol = "Sm/Math_Symbol"
    case currencySymbol = "Sc/Currency_Symbol"
    case modifierSymbol = "Sk/Modifier_Symbol"
    case otherSymbol = "So/Other_Symbol"
    case spaceSeparator = "Zs/Space_Separator"
    case lineSeparator = "Zl/Line_Separator"
    case paragraphSeparator = "Zp/Paragraph_Separator"
    case control = "Cc/Control"
    case format = "Cf/Format"
    case surrogate = "Cs/Surrogate"
    case privateUse = "Co/Private_Use"
    case unassigned = "Cn/Unassigned"

    var shortName: String { String(rawValue.split(separator: "/")[0]) }
    var longName: String { String(rawValue.split(separator: "/")[1]) }
    var alias: String? {
        switch self {
        case .decimalNumber: "digit"
        case .control: "cntrl"
        default: nil
        }
    }

    init(_ category: Unicode.GeneralCategory) {
        switch category {
        case .uppercaseLetter: self = .uppercaseLetter
        case .lowercaseLetter: self = .lowercaseLetter
        case .titlecaseLetter: self = .titlecaseLetter
        case .modifierLetter: self = .modifierLetter
        case .otherLetter: self = .otherLetter
        case .nonspacingMark: self = .nonspacingMark
        case .spacingMark: self = .spacingMark
        case .enclosingMark: self = .enclosingMark
        case .decimalNumber: self = .decimalNumber
        case .letterNumber: self = .letterNumber
        case .otherNumber: self = .otherNumber
        case .connectorPunctuation: self = .connectorPunctuation
        case .dashPunctuation: self = .dashPunctuation
        case .openPunctuation: self = .openPunctuation
        case .closePunctuation: self = .closePunctuation
        case .initialPunctuation: self = .initialPunctuation
        case .finalPunctuation: self = .finalPunctuation
        case .otherPunctuation: self = .otherPunctuation
        case .mathSymbol: self = .mathSymbol
        case .currencySymbol: self = .currencySymbol
        case .modifierSymbol: self = .modifierSymbol
        case .otherSymbol: self = .otherSymbol
        case .spaceSeparator: self = .spaceSeparator
        case .lineSeparator: self = .lineSeparator
        case .paragraphSeparator: self = .paragraphSeparator
        case .control: self = .control
        case .format: self = .format
        case .surrogate: self = .surrogate
        case .privateUse: self = .privateUse
        case .unassigned: self = .unassigned
        @unknown default: self = .unassigned
        }
    }
}

/// Binary Unicode properties ECMA-262 lists (table 68) that Swift's standard library answers.
enum BinaryProperty: String, Sendable, Hashable {
    case any = "Any"
    case ascii = "ASCII"
    case assigned = "Assigned"
    case asciiHexDigit = "ASCII_Hex_Digit"
    case alphabetic = "Alphabetic"
    case bidiControl = "Bidi_Control"
    case bidiMirrored = "Bidi_Mirrored"
    case caseIgnorable = "Case_Ignorable"
    case cased = "Cased"
    case changesWhenCasefolded = "Changes_When_Casefolded"
    case changesWhenCasemapped = "Changes_When_Casemapped"
    case changesWhenLowercased = "Changes_When_Lowercased"
    case changesWhenNFKCCasefolded = "Changes_When_NFKC_Casefolded"
    case changesWhenTitlecased = "Changes_When_Titlecased"
    case changesWhenUppercased = "Changes_When_Uppercased"
    case dash = "Dash"
    case defaultIgnorableCodePoint = "Default_Ignorable_Code_Point"
    case deprecated = "Deprecated"
    case diacritic = "Diacritic"
    case emoji = "Emoji"
    case emojiComponent = "Emoji_Component"
    case emojiModifier = "Emoji_Modifier"
    case emojiModifierBase = "Emoji_Modifier_Base"
    case emojiPresentation = "Emoji_Presentation"
    case extender = "Extender"
    case graphemeBase = "Grapheme_Base"
    case graphemeExtend = "Grapheme_Extend"
    case hexDigit = "Hex_Digit"
    case idsBinaryOperator = "IDS_Binary_Operator"
    case idsTrinaryOperator = "IDS_Trinary_Operator"
    case idContinue = "ID_Continue"
    case idStart = "ID_Start"
    case ideographic = "Ideographic"
    case joinControl = "Join_Control"
    case logicalOrderException = "Logical_Order_Exception"
    case lowercase = "Lowercase"
    case math = "Math"
    case noncharacterCodePoint = "Noncharacter_Code_Point"
    case patternSyntax = "Pattern_Syntax"
    case patternWhiteSpace = "Pattern_White_Space"
    case quotationMark = "Quotation_Mark"
    case radical = "Radical"
    case sentenceTerminal = "Sentence_Terminal"
    case softDotted = "Soft_Dotted"
    case terminalPunctuation = "Terminal_Punctuation"
    case unifiedIdeograph = "Unified_Ideograph"
    case uppercase = "Uppercase"
    case variationSelector = "Variation_Selector"
    case whiteSpace = "White_Space"
    case xidContinue = "XID_Continue"
    case xidStart = "XID_Start"

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch self {
        case .any: return true
        case .ascii: return scalar.isASCII
        case .assigned: return properties.generalCategory != .unassigned
        case .asciiHexDigit: return properties.isASCIIHexDigit
        case .alphabetic: return properties.isAlphabetic
        case .bidiControl: return properties.isBidiControl
        case .bidiMirrored: return properties.isBidiMirrored
        case .caseIgnorable: return properties.isCaseIgnorable
        case .cased: return properties.isCased
        case .changesWhenCasefolded: return properties.changesWhenCaseFolded
        case .changesWhenCasemapped: return properties.changesWhenCaseMapped
        case .changesWhenLowercased: return properties.changesWhenLowercased
        case .changesWhenNFKCCasefolded: return properties.changesWhenNFKCCaseFolded
        case .changesWhenTitlecased: return properties.changesWhenTitlecased
        case .changesWhenUppercased: return properties.changesWhenUppercased
        case .dash: return properties.isDash
        case .defaultIgnorableCodePoint: return properties.isDefaultIgnorableCodePoint
        case .deprecated: return properties.isDeprecated
        case .diacritic: return properties.isDiacritic
        case .emoji: return properties.isEmoji
        case .emojiComponent:
            return scalar.value == 0x23 || scalar.value == 0x2A || (0x30...0x39).contains(scalar.value)
                || scalar.value == 0x200D || scalar.value == 0x20E3 || scalar.value == 0xFE0F || (0x1F1E6...0x1F1FF).contains(scalar.value)
                || (0x1F3FB...0x1F3FF).contains(scalar.value) || (0x1F9B0...0x1F9B3).contains(scalar.value)
                || (0xE0020...0xE007F).contains(scalar.value)
        case .emojiModifier: return properties.isEmojiModifier
        case .emojiModifierBase: return properties.isEmojiModifierBase
        case .emojiPresentation: return properties.isEmojiPresentation
        case .extender: return properties.isExtender
        case .graphemeBase: return properties.isGraphemeBase
        case .graphemeExtend: return properties.isGraphemeExtend
        case .hexDigit: return properties.isHexDigit
        case .idsBinaryOperator: return properties.isIDSBinaryOperator
        case .idsTrinaryOperator: return properties.isIDSTrinaryOperator
        case .idContinue: return properties.isIDContinue
        case .idStart: return properties.isIDStart
        case .ideographic: return properties.isIdeographic
        case .joinControl: return properties.isJoinControl
        case .logicalOrderException: return properties.isLogicalOrderException
        case .lowercase: return properties.isLowercase
        case .math: return properties.isMath
        case .noncharacterCodePoint: return properties.isNoncharacterCodePoint
        case .patternSyntax: return properties.isPatternSyntax
        case .patternWhiteSpace: return properties.isPatternWhitespace
        case .quotationMark: return properties.isQuotationMark
        case .radical: return properties.isRadical
        case .sentenceTerminal: return properties.isSentenceTerminal
        case .softDotted: return properties.isSoftDotted
        case .terminalPunctuation: return properties.isTerminalPunctuation
        case .unifiedIdeograph: return properties.isUnifiedIdeograph
        case .uppercase: return properties.isUppercase
        case .variationSelector: return properties.isVariationSelector
        case .whiteSpace: return properties.isWhitespace
        case .xidContinue: return properties.isXIDContinue
        case .xidStart: return properties.isXIDStart
        }
    }
}
