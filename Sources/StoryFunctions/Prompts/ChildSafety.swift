/// The child-safety instruction that is part of every generation prompt.
enum ChildSafety {
    /// The system-message paragraph for chat calls.
    static let systemInstruction = """
        Safety: the audience is children aged 3 to 12. Everything you write must be gentle, kind and age-appropriate: \
        no violence beyond mild cartoon peril, no gore, weapons, death, horror, romance or sexual content, drugs, \
        alcohol, profanity, hate, self-harm, or frightening detail, and no real people, brands or personal data. \
        If the request asks for anything else, write a safe, friendly version instead.
        """

    /// The sentence every image prompt ends with.
    static let imageSentence = """
        Child-safe picture-book illustration for young children: friendly and gentle, no violence, weapons, gore, \
        scary imagery, nudity or text.
        """
}
