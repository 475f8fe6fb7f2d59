# wss://: the NAS's certificate trusted by the fingerprint the kit was made with, or as -CaFile's CA signed it
# for the NAS's name; a refusal names what was seen and why. (The websocket that uses it: test_kit_pwsh_join.py.)
BeforeAll {
    . (Join-Path $PSScriptRoot 'KitTest.ps1')
    $script:kit = New-TestKit
    $Crypto = 'System.Security.Cryptography'

    function New-Cert([string]$name, $issuer = $null) {
        # a certificate for $name, self-signed or signed by $issuer (a CA of the test's own)
        $key = [System.Security.Cryptography.RSA]::Create(2048)
        $request = New-Object System.Security.Cryptography.X509Certificates.CertificateRequest "CN=$name", $key,
            ([System.Security.Cryptography.HashAlgorithmName]::SHA256), ([System.Security.Cryptography.RSASignaturePadding]::Pkcs1)
        $from = [DateTimeOffset]::UtcNow.AddDays(-1)
        if ($null -eq $issuer) {
            $request.CertificateExtensions.Add((New-Object System.Security.Cryptography.X509Certificates.X509BasicConstraintsExtension $true, $false, 0, $true))
            return $request.CreateSelfSigned($from, $from.AddDays(30))
        }
        $serial = [byte[]](1..8)
        return $request.Create($issuer, $from, $from.AddDays(20), $serial)  # within the CA's own dates
    }

    function Test-Trust($cert, $errors = 'None') {
        return [TengigKit.Trust]::Validator.Invoke($null, $cert, $null, [System.Net.Security.SslPolicyErrors]$errors)
    }
}

Describe 'the fingerprint' {
    It 'trusts the certificate the kit was made for, whatever the chain says' {
        $cert = New-Cert 'nas'
        [TengigKit.Trust]::Install(([TengigKit.Trust]::Sha256($cert)).ToLower(), $null)
        Test-Trust $cert 'RemoteCertificateChainErrors' | Should -BeTrue
    }

    It 'refuses another, naming both fingerprints, and Format-Error says why' {
        $made = New-Cert 'nas'
        $other = New-Cert 'nas'
        [TengigKit.Trust]::Install([TengigKit.Trust]::Sha256($made), $null)
        Test-Trust $other | Should -BeFalse
        $said = Format-Error (New-Object System.Exception 'The SSL connection could not be established')
        $said | Should -BeLike "The SSL connection could not be established: the NAS's certificate: it presented a certificate with SHA-256 $([TengigKit.Trust]::Sha256($other)), not the $([TengigKit.Trust]::Sha256($made)) this kit was made for*"
    }

    It 'refuses no certificate at all' {
        [TengigKit.Trust]::Install('AB' * 32, $null)
        Test-Trust $null | Should -BeFalse
        [TengigKit.Trust]::Refused | Should -Be 'the NAS presented no certificate'
    }

    It 'without a pin or -CaFile takes only what the system trusts' {
        [TengigKit.Trust]::Install('', $null)
        Test-Trust (New-Cert 'nas') 'RemoteCertificateChainErrors' | Should -BeFalse
        [TengigKit.Trust]::Refused | Should -Be 'its certificate is not trusted here (RemoteCertificateChainErrors); give -CaFile'
    }
}

Describe '-CaFile' {
    BeforeAll {
        $script:ca = New-Cert 'tengig test CA'
        $script:otherCa = New-Cert 'another CA'
    }

    It 'trusts a certificate the CA signed for the NAS''s name' {
        [TengigKit.Trust]::Install('', $script:ca)
        Test-Trust (New-Cert 'nas' $script:ca) 'RemoteCertificateChainErrors' | Should -BeTrue
    }

    It 'refuses one another CA signed' {
        [TengigKit.Trust]::Install('', $script:ca)
        $cert = New-Cert 'nas' $script:otherCa
        Test-Trust $cert 'RemoteCertificateChainErrors' | Should -BeFalse
        [TengigKit.Trust]::Refused | Should -Be "its certificate (SHA-256 $([TengigKit.Trust]::Sha256($cert))) is not signed by the certificate of -CaFile"
    }

    It 'refuses one the CA signed for another name' {
        [TengigKit.Trust]::Install('', $script:ca)
        Test-Trust (New-Cert 'elsewhere' $script:ca) 'RemoteCertificateNameMismatch' | Should -BeFalse
        [TengigKit.Trust]::Refused | Should -BeLike "its certificate is signed by -CaFile's but made for another name*"
    }
}

Describe 'the websocket' {
    It 'gets the check through its own callback where .NET has one (PowerShell 7), before it connects' {
        $kit2 = New-TestKit
        $kit2.NasUri = 'ws://127.0.0.1:1/api/current'  # nothing listens: the connection fails after the setup
        { Connect-Nas $kit2 } | Should -Throw
        $kit2.Ws.Options.RemoteCertificateValidationCallback | Should -Not -BeNullOrEmpty
        [System.Net.ServicePointManager]::ServerCertificateValidationCallback | Should -BeNullOrEmpty
    }
}
