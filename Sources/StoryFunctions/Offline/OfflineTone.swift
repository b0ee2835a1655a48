#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// The offline provider's speech: a soft tone in real MPEG-1 Layer III frames (32 kHz, 32 kbps, mono, 144-byte
/// frames of 36 ms, the format of `MP3.silenceHeader`), so a player makes a sound for as long as the text would
/// take to read.
///
/// The frames were encoded once by LAME without the bit reservoir, so each holds its own audio and any run of them
/// decodes; the tone repeats every 28 frames (1.008 s), so the loop repeats without a click.
/// `scripts/make-offline-tone.py` prints them again.
enum OfflineTone {
    /// One loop of 28 frames.
    static let loop: [UInt8] = [UInt8](Data(base64Encoded: Self.loopBase64, options: .ignoreUnknownCharacters)!)

    static let frameLength = 144
    static let frameCount = 28

    /// Whole frames lasting at least `seconds` (at least one frame, at most four hours), the loop repeated.
    static func speech(seconds: Double) -> [UInt8] {
        let frameSeconds = MP3.silenceHeader.duration
        let wanted = seconds.isFinite && seconds > 0 ? (seconds / frameSeconds).rounded(.up) : 1
        let count = max(1, Int(min(wanted, 400_000)))
        let loop = Self.loop
        var result: [UInt8] = []
        result.reserveCapacity(count * Self.frameLength)
        var remaining = count
        while remaining > 0 {
            let frames = min(remaining, Self.frameCount)
            result.append(contentsOf: loop[0..<(frames * Self.frameLength)])
            remaining -= frames
        }
        return result
    }

    private static let loopBase64 = """
        //sYxAACRhQbPa5lJDCyA6e1zSSGAAAU+1tsjAENPCQgIGc4yqIgJCj1KdEowaFI+96no77+2tNFesX6fynXv+KJosSrUZv9rbKnrIAAAeQZ4ERg
        eAHQFMPChIThRrU0WtajIAP0/bR/uXKd3vT/23t1JiCmopmXGJgYAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBowdP65tgnCzg2e1vjBOAAAV
        3+21sAFSG00DCtEPmDjHXgHlDJyYsXihdddEIOoTjfi+hisj3bogWdoTdfRev1Nb/QZt7bZWALMXVwZTsA9aGLRyPX1cZYOE4aQWpqXs7PTb6dlX
        6Pve065Uuor/+1MQU1FMy4xMDAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBagbPazxInC1g2g0nZgWAAAU211sjAEtgZep1ogtumHWuaEALJjySoLE
        h10nf0q2ItOgrs+39qfb/o0alf/ttbAAhCy5TE7c/QFEOKDAGPF6pIM4yrjqyGvdot/1bmJkMi30rq06lDevUmIKaimZcYmBgAAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAAA//sYxAACRqAdOa5thDCpg2e1zWxGAAAU21usjAEMtKFAKYZ9pzAUmDo+cqHrsEs/PA7JriIRc9tj9Tfi+LtXV1e97nUf/VT7
        d+83fW3SUwUgRHdWcwuZqOHqbJIfp6R66tl5ZmU6rLmfR6sRVfJaP2bPsq2JiCmopmXGJgYAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBfgbO65t
        gnDBg6c1zSSGAAAM29trkAF2AEGzBHVN3ETIoQPdlPFtuALYbL96XIIUc+3t1K/f/TrT7OsWq6uszbXWyMAW4cR7MTa05WATCUiPyGaa+0QCt6m1
        G+3l1vcdo9H7qf2C79e6jk2JH5H0JiCmopmXGJgYAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBeQdPa5gxDCzg6e1jiROAAAU22utjAFqibcw8syk
        fFhxGwEfMxaA7UxartTY06j17Nf6RjDQac1d/6Oj+QUr9rrZIAKaWuMfHBJOMBpYHNx+0EJiBFpeO21assBa59f0+v3ex+U/bzN1i+pMQU1FMy4x
        MDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACxdgdQe3pBDCqA6fQbaQWAAAAJniNtrYAK1K4Rg0gEvwsBE8yFmJIYK1ir7DYIGAE/vHftV9d
        ze32K7W2di1f+cJZkCPoFlwBbQ69kWVY0piL6tkoOFhdb6L0ULGagCp/9iNjNHMq18VTEFNRTMuMTAwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
        //sYxAAARawbPaNXYDCzA6e1zYxOAAIU/+1tjABwkRQIz4DOwzcgpFlV3vKaw5ymknjm+KKVj/Z6fvqtxD6v0ardoAACu+tumptngFkwKdAZSg5L
        jDugGJJF0XiC5yeKN7dSVkYpw73O/9V24p71JiCmopmXGJgYAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAAABQwbPaHtALCkg2h8HRQWAAAN
        21tsjAEDuAYTuBJIYAojV3CD3gJ1syXd7m/7vup/4z937d+t0kAAAgLxDjbWwAIcsAMIb0BYIRcp11QLWwaeFgqIMt9f8Vb0nv7P/f/+hMQU1FMy
        4xMDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBVQZPaxswnCdgie0PWwGAAAV3+1skAGNqKmk5G+CjYGPVK2aJD6dbH1/
        YHNG5X2o/2J7n/T1yafdYb/7bbWAFAnZMD5G0EQwCY0rBA09M3UpG/Z3/VX9/OkmDfahnqU370xBTUUzLjEwMAAAAAAAAAAAAAAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAAA//sYxAACBfQbPa3oYnCpAyd1vRhOAAAN/911rAGNM6IXsQ2qBcAlMi4hHCHRNllCqKne3+zzdNgKzSdOxL3qKLdeV/ip32tt
        sYAqzTYSptgaaYM4TmJOgzgTK1Kt76Vauzu9He9iW3Cjd3Vb57qQmIKaimZcYmBgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAAAROgZPa3k
        wnCaA2d1vQxOAAQW+9usjAGNx6xBUgq8KwjeMuI1Ipi7Xq3XavUoQ6WOv//T/6tqgAADf9rbN1H3AEeD3ZLbDnM05kGK5C8gnVfR/s/2di/d/1/u
        izo9MQU1FMy4xMDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACROATO6Fp4HCwg6R9rvBEAAAN21tsjADiJeYCGJ9w
        tdCNvLg4HrqtrdndR+rJ/IWvTLq/0fcaBpdaLm7zNRIUeagPsGYvLucjCYcCF1u2+iwdLxF092dv1/p+q3/Ff/o378amIKaimZcYmBgAAAAAAAAA
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBPQZPaDoYLCZA2e1rIxOAAIX/21tjAAgxoKPhdklyVqaIW8BtVEaCm7oXL10/2f7crR6P/v/
        Qvt7bZIAMqsSEWQNyC0A91ZOwK8KBCjv06/+zs/0f+/4arcNcYvWmIKaimZcYmBgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
        //sYxAACBawdI67zQiCngid0PegGAAAE/9kkbADhLAjIKGAGCGnycYK4R7UiwMATkid231OiQ3d/V9vdu/6PnP/9J3/u2sYAgOCB2IBywViCRCnB
        ACPpemy32VmyznU3KVPxWis2ncj9v7/6UxBTUUzLjEwMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAAABWQbQeDowLCcg2f0HQwWAAAB
        J3iNtrYAI5gVhC1QRjCJJbiLENCw6kQ4QLWNjX9vo+r9ezuTv/6rtQAAC//12tYAjpAuqHzhf8rQUaSgpFrnvp+n121XbnaZ3spJ1d13+lMQU1FM
        y4xMDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBTwZO6HoYLDRA6M132hEAAAO+1tsjACj0SEZP5BMEaezxShnIDljOy7p
        62dG39l9SWMhZvuou/8YFXGoyQAC8ICAowiBkzr9U1FAeTBpRHMZzAopusKZqqKDrxrZQV1fvJSPfEP2OQ3/37XelyYgpqKZlxiYGAAAAAAAAAAA
        AAAAAAAAAAAAAAAA//sYxAACBYgZPa3oYnChA2g9rIxOAAAW/1ttjAGNZ9QbBhIkcjiTukdyDnUErapyyix/u7vr1XC9Kxfq6fYn0VIJoh9trYAM
        a0Eiv0uiIByM+cd0B2mBEsHLp7E9ivtr/Hb32Vv/fqt+pMQU1FMy4xMDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBSwZQe3k
        YnClg2d0PYwWAAAAJod9trYAN3ILKkSGdgxYnSonsBn1Rxad7tWr6PpX/6+77l9/Wj1nfa26RgChG5gzBCRMAPQcjRU6wU54KuqWnb9q/slr1MP7
        q/V+Ae8p/FkxBTUUzLjEwMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAAARQQRPa1vAjCfg2d1jZhOAAIN3+2sjAHbD/mC0j6e
        MPwYy6QAj00VK7mX85lUTvl/9//+7pL99IAABu3tFmV6Fh3B+6C7gGVEbiLENevoSL6dSav7GfR019CaPZR/QitMQU1FMy4xMDAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAAABfwbOaNtILCvA2g1vRhOAAAU2ttrjABIJa8YxaBPMAg4fEHnYhMHCjWrxvUvmNO/IJe9ln9G
        j3a2TtO1t4bQAAQd/9tbYAMqr7ACuD3wNjjXWeUziotRT3+1rK6+37fofrk6a933M344bIJiCmopmXGJgYAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
        //sYxAAARbQdPa5gZDCmA6e1zYxOAAIV31ttjAFaZX0CJUCiEF1WDyyqmQEIJFN1PRxR36tV+vWBnF4+7u7TOv1vWAAArv7bZWmVGiGdAakEViCm
        uMO6AYkkWShjnu/VqTXo+hW9nc7/q8U1JiCmopmXGJgYAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACRigbP6NtILCfA2g0PaAWAAAV
        /+u1sADC2YAHsBaQYAsiWfAjc4DabmIAh+1VRpZVLftjmHtYTHfL/XrSL6Ldmtb/7bWB3YMJegmIMAECLKhNzAZLsKOa2/mfpbJRzHfG9Surf/7m
        bO1MQU1FMy4xMDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBZQdP6xswnC1g6Wx3LCGAAAV/221kAHLbyAN4n+AiSB1FGWygUnqaqju
        6Kcwq9KHbZ3um6FXaxL1/99AUk/6QHFWsAgRMiaDF6JMA7CFektwQJg/hsr9MWq53tF2d3fo+/3N19e5n/0LTEFNRTMuMTAwAAAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAAA//sYxAACBgQZO65tInC9A2f1zaROAAAM2910jAEZf5Kkw3iT7AExPsN6AGnihAjBQOptvbcXdo0tkd/vXbTtUl/v/R00q//a
        6WACUxJQ0E2kzgHMVQhscc8womDiTWl3btjOQmUs9SU6Kls/p4sjSU2V1/1JiCmopmXGJgYAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACxVQdQa5p
        InC+g2f5zZhOAAAV/221sAFLHlExSfnNFmLlh+15nVEHkHXRV37PT3/X6LX8Ztdb1//bWSw8VY4oeYKmZ64iCcc0gBfY/UQYIcZUG64s4Q4hVddv
        /IBOhFzZygRdFvWqS+r6UxBTUUzLjEwMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBawbQa3gxDCwg2e1njBOAAAV/+21sAGcoYeYpOn+
        gYIwzqF2AcmgTDOMlH6tl36d36bfs6d2qt1WuM6tau/1tkYAtSZj52HBrfMQL8BS9ahPO1grWnATQ1A3gRQhcHtPs+7/7d/1dDq0xBTUUzLjEwMA
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//sYxAACBfgbPa3xgnC6A6f1zaROAAAM29uskAEad1QYyj6AaiMWAcowa4C2dpA1hsVVvf7fSTrp/d1f
        /6uoIRdte8oxX73bWwARp2UjjCFWPTEDGJIFiTavtYFUci1Lr9Gvf+8nJP+1rls6p3T2b85/chMQU1FMy4xMDAAAAAAAAAAAAAAAAAAAAAAAAAAA
        """
}
