using System;
using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace TengigKit
{
    // The NAS's certificate trusted by its fingerprint (or as -CaFile's CA signed it for the NAS's name).
    // Validator is given to the websocket by the kit: ClientWebSocket.Options.RemoteCertificateValidationCallback
    // where it exists (.NET Core: PowerShell 7), else ServicePointManager's callback (.NET Framework: 5.1).
    public static class Trust
    {
        private static string pin = "";
        private static X509Certificate2 authority;
        public static string Refused = "";

        // ca: the certificate of -CaFile (loaded by the kit), or null.
        public static void Install(string fingerprint, X509Certificate2 ca)
        {
            pin = fingerprint.ToUpperInvariant();
            authority = ca;
            Refused = "";
        }

        public static RemoteCertificateValidationCallback Validator
        {
            get { return Check; }
        }

        public static string Sha256(X509Certificate certificate)
        {
            using (SHA256 sha = SHA256.Create())
            {
                return BitConverter.ToString(sha.ComputeHash(certificate.GetRawCertData())).Replace("-", "");
            }
        }

        public static bool Check(object sender, X509Certificate certificate, X509Chain chain, SslPolicyErrors errors)
        {
            if (certificate == null)
            {
                Refused = "the NAS presented no certificate";
                return false;
            }
            string seen = Sha256(certificate);
            if (authority != null)
            {
                X509Chain own = new X509Chain();
                own.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
                own.ChainPolicy.VerificationFlags = X509VerificationFlags.AllowUnknownCertificateAuthority;
                own.ChainPolicy.ExtraStore.Add(authority);
                bool built = own.Build(new X509Certificate2(certificate));
                X509Certificate2 root = own.ChainElements[own.ChainElements.Count - 1].Certificate;
                if (!built || root.Thumbprint != authority.Thumbprint)
                {
                    Refused = "its certificate (SHA-256 " + seen + ") is not signed by the certificate of -CaFile";
                    return false;
                }
                if ((errors & SslPolicyErrors.RemoteCertificateNameMismatch) != 0)
                {
                    Refused = "its certificate is signed by -CaFile's but made for another name than the NAS's";
                    return false;
                }
                return true;
            }
            if (pin.Length > 0)
            {
                if (seen == pin)
                {
                    return true;
                }
                Refused = "it presented a certificate with SHA-256 " + seen + ", not the " + pin + " this kit was " +
                    "made for: the NAS changed its certificate (get a new kit) or another machine answered";
                return false;
            }
            if (errors == SslPolicyErrors.None)
            {
                return true;
            }
            Refused = "its certificate is not trusted here (" + errors + "); give -CaFile";
            return false;
        }
    }
}
